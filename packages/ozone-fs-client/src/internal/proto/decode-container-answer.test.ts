// The hand-written answer decoder against the generated codecs (the reference): random valid
// answers encoded by protobufjs decode to the same values with both; truncated answers fail or
// succeed with both alike; random and corrupted bytes give a typed protocol error, never a crash.
import fc from 'fast-check';
import { garbageOrCorrupted, outcome, type Outcome } from '../../../test/support/wire-fuzz.js';
import Long from 'long';
import { OzoneProtocolError } from '../../ozone-errors.js';
import {
  decodeContainerAnswer,
  type ChecksumDataView,
  type ChunkInfoView,
  type ContainerAnswer,
} from './decode-container-answer.js';
import { dn, has, toBigInt, toNumber, type hadoop } from './wire.js';

type Msg = hadoop.hdds.datanode.IContainerCommandResponseProto;

const int64 = fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n).map((v) => Long.fromString(v.toString(), false));
const uint64Big = fc.bigInt(0n, 2n ** 64n - 1n).map((v) => Long.fromString(v.toString(), true));
const uint64Safe = fc.maxSafeNat().map((v) => Long.fromNumber(v, true));
const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((b) => Buffer.from(b));

const blockId = fc.record(
  {
    containerID: int64,
    localID: int64,
    blockCommitSequenceId: uint64Big,
    replicaIndex: fc.integer({ min: -5, max: 20 }),
  },
  { requiredKeys: ['containerID', 'localID'] },
);

const checksumData = fc.record(
  {
    type: fc.integer({ min: 1, max: 5 }),
    bytesPerChecksum: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    checksums: fc.array(bytes(32), { maxLength: 8 }),
  },
  { requiredKeys: ['type', 'bytesPerChecksum'] },
);

const keyValue = fc.record({ key: fc.string(), value: fc.string() }, { requiredKeys: ['key'] });

const chunkInfo = fc.record(
  {
    chunkName: fc.string({ unit: 'binary', maxLength: 40 }),
    offset: uint64Safe,
    len: uint64Safe,
    metadata: fc.array(keyValue, { maxLength: 2 }),
    checksumData,
    stripeChecksum: bytes(8),
  },
  { requiredKeys: ['chunkName', 'offset', 'len', 'checksumData'] },
);

const readChunk = fc.oneof(
  fc.record({ blockID: blockId, chunkData: chunkInfo }),
  fc.record({ blockID: blockId, chunkData: chunkInfo, data: bytes(300) }),
  fc.record({
    blockID: blockId,
    chunkData: chunkInfo,
    dataBuffers: fc.record({ buffers: fc.array(bytes(100), { maxLength: 6 }) }),
  }),
);

const getBlock = fc.record(
  {
    blockData: fc.record(
      {
        blockID: blockId,
        flags: int64,
        metadata: fc.array(keyValue, { maxLength: 2 }),
        chunks: fc.array(chunkInfo, { maxLength: 4 }),
        size: uint64Safe.map((l) => Long.fromBits(l.low, l.high, false)),
      },
      { requiredKeys: ['blockID'] },
    ),
    shortCircuitAccessGranted: fc.boolean(),
  },
  { requiredKeys: ['blockData'] },
);

const readBlock = fc.record({ checksumData, offset: uint64Safe, data: bytes(300) });

const answer: fc.Arbitrary<Msg> = fc
  .record(
    {
      cmdType: fc.integer({ min: 1, max: 25 }),
      traceID: fc.string(),
      result: fc.integer({ min: 1, max: 49 }),
      message: fc.string({ unit: 'grapheme', maxLength: 30 }),
      body: fc.oneof(
        fc.constant({}),
        readChunk.map((readChunk) => ({ readChunk })),
        getBlock.map((getBlock) => ({ getBlock })),
        readBlock.map((readBlock) => ({ readBlock })),
        // Bodies the read path skips.
        fc.record({ echo: fc.record({ payload: bytes(50) }) }),
        fc.record({ writeChunk: fc.constant({}) }),
      ),
      clientId: bytes(16),
      callId: uint64Big,
    },
    { requiredKeys: ['cmdType', 'result', 'body'] },
  )
  .map(({ body, ...rest }): Msg => ({ ...rest, ...body }));

function encode(m: Msg): Buffer {
  return Buffer.from(dn.ContainerCommandResponseProto.encode(m).finish());
}

const hex = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString('hex');

/** What the reference decoder makes of the fields the hand-written one decodes. */
function reference(raw: Buffer) {
  // Through protobufjs' plain reader: its Buffer reader cuts a string that runs past the end
  // short instead of failing (a truncated answer would pass), where its plain one fails, as
  // the hand-written decoder does.
  const m = dn.ContainerCommandResponseProto.decode(new Uint8Array(raw));
  const id = (b: hadoop.hdds.datanode.IDatanodeBlockID) => ({
    containerID: toBigInt(b.containerID),
    localID: toBigInt(b.localID),
    blockCommitSequenceId: toBigInt(b.blockCommitSequenceId),
  });
  const cd = (c: hadoop.hdds.datanode.IChecksumData) => ({
    type: c.type,
    bytesPerChecksum: c.bytesPerChecksum,
    checksums: (c.checksums ?? []).map(hex),
  });
  const chunk = (c: hadoop.hdds.datanode.IChunkInfo) => ({
    chunkName: c.chunkName,
    offset: toNumber(c.offset),
    len: toNumber(c.len),
    checksumData: cd(c.checksumData),
  });
  const rc = m.readChunk;
  const gb = m.getBlock;
  const rb = m.readBlock;
  return {
    cmdType: m.cmdType,
    result: m.result,
    message: has(m, 'message') ? m.message : undefined,
    getBlock: gb
      ? {
          blockData: {
            blockID: id(gb.blockData.blockID),
            chunks: (gb.blockData.chunks ?? []).map(chunk),
            size: has(gb.blockData, 'size') ? toNumber(gb.blockData.size) : undefined,
          },
        }
      : undefined,
    readChunk: rc
      ? {
          blockID: id(rc.blockID),
          chunkData: chunk(rc.chunkData),
          parts: (rc.dataBuffers ? (rc.dataBuffers.buffers ?? []) : has(rc, 'data') ? [rc.data] : []).map(
            hex,
          ),
        }
      : undefined,
    readBlock: rb
      ? { checksumData: cd(rb.checksumData), offset: toNumber(rb.offset), data: hex(rb.data) }
      : undefined,
  };
}

/** The hand-written decoder's answer with bytes as hex, to compare with {@link reference}. */
function comparable(a: ContainerAnswer) {
  const cd = (c: ChecksumDataView) => ({ ...c, checksums: c.checksums.map(hex) });
  const chunk = (c: ChunkInfoView) => ({ ...c, checksumData: cd(c.checksumData) });
  return {
    ...a,
    getBlock: a.getBlock
      ? { blockData: { ...a.getBlock.blockData, chunks: a.getBlock.blockData.chunks.map(chunk) } }
      : undefined,
    readChunk: a.readChunk
      ? { ...a.readChunk, chunkData: chunk(a.readChunk.chunkData), parts: a.readChunk.parts.map(hex) }
      : undefined,
    readBlock: a.readBlock
      ? {
          checksumData: cd(a.readBlock.checksumData),
          offset: a.readBlock.offset,
          data: hex(a.readBlock.data),
        }
      : undefined,
  };
}

function tryBoth(raw: Buffer): { ref: Outcome<unknown>; ours: Outcome<unknown> } {
  return {
    ref: outcome<unknown>(() => reference(raw)),
    ours: outcome<unknown>(() => comparable(decodeContainerAnswer(raw, 'dn:1'))),
  };
}

function expectTypedOrDecoded(ours: Outcome<unknown>): void {
  if (!ours.ok) {
    expect(ours.error).toBeInstanceOf(OzoneProtocolError);
    expect((ours.error as OzoneProtocolError).code).toBe('ERR_OZONE_PROTOCOL');
    expect((ours.error as Error).message).toMatch(/^dn:1: undecodable response: /);
  }
}

describe('decodeContainerAnswer', () => {
  it('decodes random valid answers as the generated codecs do', () => {
    fc.assert(
      fc.property(answer, (m) => {
        const { ref, ours } = tryBoth(encode(m));
        expect(ref.ok).toBe(true);
        expect(ours).toEqual(ref);
      }),
      { numRuns: 500 },
    );
  });

  it('fails on a truncated answer where the generated codecs fail, else agrees with them', () => {
    fc.assert(
      fc.property(answer, fc.double({ min: 0, max: 1, noNaN: true }), (m, at) => {
        const full = encode(m);
        const { ref, ours } = tryBoth(full.subarray(0, Math.floor(full.length * at)));
        expectTypedOrDecoded(ours);
        if (!ref.ok) expect(ours.ok).toBe(false);
        else if (ours.ok) expect(ours).toEqual(ref);
        // protobufjs reads some varints cut by the end of the buffer without failing (the last
        // byte of a short varint is taken whatever its continuation bit); the hand-written
        // decoder refuses anything that runs past the end, and nothing else.
        else expect((ours.error as Error).message).toMatch(/runs past its message/);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives random and corrupted bytes a typed protocol error, never a crash', () => {
    fc.assert(
      fc.property(garbageOrCorrupted(answer, encode), (raw) => {
        expectTypedOrDecoded(tryBoth(raw).ours);
        // No agreement is asked of garbage: protobufjs reads some malformed varints its own
        // way (a uint32 of more than 5 bytes skips 5 more whatever they hold) and replaces
        // invalid UTF-8 differently; valid and truncated answers are compared above.
      }),
      { numRuns: 5000 },
    );
  });

  it('returns views of the received buffer for data and checksums, not copies', () => {
    const data = Buffer.alloc(1 << 20, 7);
    const raw = encode({
      cmdType: dn.Type.ReadChunk,
      result: dn.Result.SUCCESS,
      readChunk: {
        blockID: { containerID: Long.fromInt(1), localID: Long.fromInt(2) },
        chunkData: {
          chunkName: 'c',
          offset: Long.fromInt(0, true),
          len: Long.fromInt(data.length, true),
          checksumData: {
            type: 2,
            bytesPerChecksum: 1 << 19,
            checksums: [Buffer.from('abcd'), Buffer.from('efgh')],
          },
        },
        dataBuffers: { buffers: [data.subarray(0, 1 << 19), data.subarray(1 << 19)] },
      },
    });
    const a = decodeContainerAnswer(raw, 'dn:1').readChunk!;
    for (const view of [...a.parts, ...a.chunkData.checksumData.checksums])
      expect(view.buffer).toBe(raw.buffer);
    raw[raw.length - 1] = 9;
    expect(a.parts[1]![(1 << 19) - 1]).toBe(9);
  });

  it('keeps 64-bit IDs exact, negative ones included', () => {
    const raw = encode({
      cmdType: dn.Type.GetBlock,
      result: dn.Result.SUCCESS,
      getBlock: {
        blockData: {
          blockID: {
            containerID: Long.fromString('-3', false),
            localID: Long.fromString('113750153625600001', false),
            blockCommitSequenceId: Long.fromString('18446744073709551615', true),
          },
        },
      },
    });
    expect(decodeContainerAnswer(raw, 'dn:1').getBlock?.blockData.blockID).toEqual({
      containerID: -3n,
      localID: 113750153625600001n,
      blockCommitSequenceId: 2n ** 64n - 1n,
    });
  });

  it('refuses an offset beyond 2^53 rather than rounding it', () => {
    const raw = encode({
      cmdType: dn.Type.ReadBlock,
      result: dn.Result.SUCCESS,
      readBlock: {
        checksumData: { type: 1, bytesPerChecksum: 0 },
        offset: Long.fromString('9007199254740993', true),
        data: Buffer.alloc(1),
      },
    });
    expect(() => decodeContainerAnswer(raw, 'dn:1')).toThrow(/offset is beyond 2\^53/);
  });
});
