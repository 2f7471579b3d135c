import Long from 'long';
import { dn, hdds, int64, om, toBigInt, uint64 } from './wire.js';

describe('64-bit conversions', () => {
  // Every edge of both halves and of the sign, values a real cluster's IDs take, and a fixed
  // sequence of others across the whole range.
  const edges = [
    0n,
    1n,
    0xffffffffn,
    0x100000000n,
    0x7fffffffn,
    0x80000000n,
    2n ** 53n + 1n,
    113750153625600001n,
    2n ** 63n - 1n,
    -1n,
    -(2n ** 31n),
    -(2n ** 32n) - 1n,
    -(2n ** 63n),
  ];
  let x = 0x9e3779b97f4a7c15n;
  const spread = Array.from({ length: 500 }, () => {
    x = BigInt.asUintN(64, x * 6364136223846793005n + 1442695040888963407n);
    return BigInt.asIntN(64, x);
  });
  const all = [...edges, ...spread];

  it('int64 and toBigInt keep every signed value exact, as Long reads it from decimal', () => {
    for (const v of all) {
      const long = int64(v);
      expect([v, long.toString(), long.unsigned]).toEqual([v, v.toString(), false]);
      expect(toBigInt(long)).toBe(v);
      expect(toBigInt(Long.fromString(v.toString(), false))).toBe(v);
    }
  });

  it('uint64 and toBigInt keep every unsigned value exact', () => {
    for (const v of all.map((s) => BigInt.asUintN(64, s))) {
      const long = uint64(v);
      expect([v, long.toString(), long.unsigned]).toEqual([v, v.toString(), true]);
      expect(toBigInt(long)).toBe(v);
    }
  });

  it('reads an unsigned value above 2^63 as unsigned, the same bits signed as negative', () => {
    const big = 2n ** 64n - 5n;
    expect(toBigInt(uint64(big))).toBe(big);
    expect(toBigInt(uint64(big).toSigned())).toBe(-5n);
  });
});

describe('generated codecs', () => {
  it('keep 64-bit IDs above 2^53 exact', () => {
    const id = 113750153625600001n;
    const bytes = dn.DatanodeBlockID.encode({ containerID: int64(1n), localID: int64(id) }).finish();
    expect(toBigInt(dn.DatanodeBlockID.decode(bytes).localID)).toBe(id);
  });

  it('decode bytes fields as views of the received buffer, not copies', () => {
    const data = Buffer.alloc(4 << 20, 1);
    const wire = Buffer.from(
      dn.ReadChunkResponseProto.encode({
        blockID: { containerID: int64(1n), localID: int64(2n) },
        chunkData: {
          chunkName: 'c',
          offset: uint64(0),
          len: uint64(data.length),
          checksumData: { type: 1, bytesPerChecksum: 16384 },
        },
        dataBuffers: { buffers: [data.subarray(0, 1 << 20), data.subarray(1 << 20)] },
      }).finish(),
    );
    const decoded = dn.ReadChunkResponseProto.decode(wire);
    const first = decoded.dataBuffers?.buffers?.[0] as Uint8Array;
    expect(first.buffer).toBe(wire.buffer);
    expect(first.byteOffset).toBeGreaterThan(wire.byteOffset);
    wire[wire.length - 1] = 9;
    expect(decoded.dataBuffers?.buffers?.[1]?.[(3 << 20) - 1]).toBe(9);
  });

  it('refuse a message whose required field is missing', () => {
    // ChecksumData with only bytesPerChecksum (field 2): type (field 1) is required.
    expect(() => dn.ChecksumData.decode(Buffer.from([0x10, 0x01]))).toThrow(/missing required 'type'/);
  });

  it('write required fields even when they hold the default', () => {
    const bytes = Buffer.from(
      dn.ChunkInfo.encode({
        chunkName: '',
        offset: uint64(0),
        len: uint64(0),
        checksumData: { type: 1, bytesPerChecksum: 0 },
      }).finish(),
    );
    // chunkName=1 "", offset=2 0, len=3 0, checksumData=5 {type=1 1, bytesPerChecksum=2 0}
    expect(bytes.toString('hex')).toBe('0a00100018002a0408011000');
  });

  it("type BucketInfo.storageType with hdds' StorageTypeProto, as Ozone's OmClientProtocol.proto does", () => {
    // PROVIDED (5) exists only in hdds' enum; the OM's decoder keeps it.
    const info = {
      volumeName: 'v',
      bucketName: 'b',
      isVersionEnabled: false,
      storageType: hdds.StorageTypeProto.PROVIDED,
    };
    const bytes = om.BucketInfo.encode(info).finish();
    expect(Buffer.from(bytes).toString('hex')).toBe('0a017612016220002805');
    expect(om.BucketInfo.decode(bytes).storageType).toBe(hdds.StorageTypeProto.PROVIDED);
    expect('StorageTypeProto' in om).toBe(false);
  });
});
