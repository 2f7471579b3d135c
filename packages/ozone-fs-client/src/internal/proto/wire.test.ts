import { dn, hdds, int64, om, toBigInt, uint64 } from './wire.js';

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
