// The read half of the contract with streaming ReadBlock on (`ozone.client.stream.readblock.enable`):
// sequential reads streamed block by block with their pre-read, large positional reads streamed,
// small ones left to ReadChunk, reads up to a block's and the key's last byte that never ask for an
// offset at the end (Ozone 2.2.0's datanode would never answer one), a corrupt replica found in a
// piece's checksums and failed over, and a block of uneven chunks read with ReadChunk instead.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { KeyInputStream, OzoneClient, OzoneClientConfig } from '../../index.js';
import { contractKeyBytes } from './contract-key-bytes.js';
import type {
  ContractKeySpec,
  OzoneClusterAdapter,
  OzoneContractCapabilities,
} from './ozone-cluster-adapter.js';
import { freshVolume, suiteClient } from './suite-client.js';
import { writeContractKey } from './write-contract-key.js';

const KiB = 1024;
const MiB = 1024 * KiB;

type KeyLayout = Omit<ContractKeySpec, 'volume' | 'bucket'>;

const key = (layout: Partial<KeyLayout> & Pick<KeyLayout, 'key' | 'sizeBytes' | 'seed'>): KeyLayout => ({
  checksumType: 'CRC32',
  bytesPerChecksum: 16 * KiB,
  chunkSizeBytes: MiB,
  blockSizeBytes: 2 * MiB,
  replication: 'THREE',
  ...layout,
});

/** Three blocks (2 MiB, 2 MiB, 1 MiB + 3 B) of 1 MiB chunks, 16 KiB per checksum. */
const BLOCKS = key({ key: 'rb-blocks', sizeBytes: 5 * MiB + 3, seed: 61 });
/** One block, replica 0 (the first tried) corrupt at 40000: window 2 (32-48 KiB) of chunk 1. */
const CORRUPT = key({ key: 'rb-corrupt', sizeBytes: 300_000, seed: 62 });
/** Chunks of 40 KiB, 64 KiB, 64 KiB, …: written with a flush after 40 KiB, so uneven. */
const UNEVEN = key({ key: 'rb-uneven', sizeBytes: 300_000, seed: 63, chunkSizeBytes: 64 * KiB });
const UNEVEN_FIRST_CHUNK = 40 * KiB;

const expected = (k: KeyLayout, length = k.sizeBytes, position = 0): Buffer =>
  contractKeyBytes(length, k.seed, position);

/**
 * Registers the ReadBlock read suite. Call it inside a `describe` whose `beforeAll` starts the
 * cluster; `adapter()` is called after that (wrap it in `withDatanodeTransport` for a transport).
 *
 * @example
 * ```ts
 * describeReadBlockReads(withDatanodeTransport(() => miniClusterAdapter(cluster), 'stream-pool'), MINI_CLUSTER_CAPABILITIES);
 * ```
 */
export function describeReadBlockReads(
  adapter: () => OzoneClusterAdapter,
  capabilities: OzoneContractCapabilities,
): void {
  const BUCKET = 'readblock';
  let volume = '';
  let writer: OzoneClient;
  const clients: OzoneClient[] = [];

  /** A client with ReadBlock on (and `config` on top). */
  function reader(config: Partial<OzoneClientConfig> = {}): OzoneClient {
    const c = suiteClient(adapter(), {
      readRetryIntervalMs: 0,
      streamReadBlockEnabled: true,
      ...config,
    });
    clients.push(c);
    return c;
  }

  const open = (c: OzoneClient, k: KeyLayout): Promise<KeyInputStream> => c.openKey(volume, BUCKET, k.key);

  beforeAll(async () => {
    const a = adapter();
    writer = suiteClient(a, { flushDelay: false });
    volume = await freshVolume(writer, 'rb', BUCKET);
    for (const k of [BLOCKS, CORRUPT]) await writeContractKey(a, writer, { volume, bucket: BUCKET, ...k });
    if (capabilities.fastpathWrites) {
      const out = await writer.createKey(volume, BUCKET, UNEVEN.key, {
        checksumType: UNEVEN.checksumType,
        bytesPerChecksum: UNEVEN.bytesPerChecksum,
        chunkSizeBytes: UNEVEN.chunkSizeBytes,
        blockSizeBytes: UNEVEN.blockSizeBytes,
        replication: UNEVEN.replication,
      });
      await out.write(expected(UNEVEN, UNEVEN_FIRST_CHUNK));
      // flushDelay off: the 40 KiB go out as a chunk of their own now.
      await out.flush();
      await out.write(expected(UNEVEN, UNEVEN.sizeBytes - UNEVEN_FIRST_CHUNK, UNEVEN_FIRST_CHUNK));
      await out.close();
    }
    if (capabilities.corruptReplica)
      await a.corruptReplica?.({ volume, bucket: BUCKET, key: CORRUPT.key, offsetInKey: 40_000, replica: 0 });
  });
  afterAll(() => {
    for (const c of clients) c.close();
    writer?.close();
  });

  it('by default a large positional read stays ReadChunk (positional.min.size is 256 MiB)', async () => {
    const stream = await open(reader(), BLOCKS);
    try {
      const got = Buffer.alloc(1.5 * MiB);
      await stream.read(100_000, got, 0, got.length);
      expect(got.equals(expected(BLOCKS, got.length, 100_000))).toBe(true);
      expect(stream.stats).toMatchObject({ readBlockCalls: 0, readChunkCalls: 2 });
    } finally {
      stream.close();
    }
  });

  it('a key read in order in 256 KiB reads: one ReadBlock per block (the pre-read serves the rest), no ReadChunk, the bytes right', async () => {
    const stream = await open(reader(), BLOCKS);
    try {
      const got = Buffer.alloc(BLOCKS.sizeBytes);
      for (let at = 0; at < got.length; at += 256 * KiB)
        await stream.read(at, got, at, Math.min(256 * KiB, got.length - at));
      expect(got.equals(expected(BLOCKS))).toBe(true);
      expect(stream.stats).toMatchObject({
        readBlockCalls: 3,
        readChunkCalls: 0,
        readBlockFallbacks: 0,
        failovers: 0,
        bytesStreamed: BLOCKS.sizeBytes,
        bytesVerified: BLOCKS.sizeBytes,
      });
      // The past end: nothing read, nothing asked.
      expect(await stream.read(BLOCKS.sizeBytes, Buffer.alloc(1), 0, 1)).toBe(0);
      expect(stream.stats.readBlockCalls).toBe(3);
    } finally {
      stream.close();
    }
  });

  it('with positional.min.size 1 MiB a 1.5 MiB positional read streams only its aligned range, in pieces of the response size; a small one stays ReadChunk', async () => {
    const c = reader({ streamReadBlockPositionalMinBytes: MiB });
    const stream = await open(c, BLOCKS);
    try {
      const position = 100_000;
      const length = 1.5 * MiB;
      const got = Buffer.alloc(length);
      expect(await stream.read(position, got, 0, length)).toBe(length);
      expect(got.equals(expected(BLOCKS, length, position))).toBe(true);
      // Aligned to 98304, 97 windows of 16 KiB asked: two pieces of 49 windows (the datanode
      // sends whole pieces of responseDataSize until the asked windows are covered).
      expect(stream.stats).toMatchObject({
        readBlockCalls: 1,
        readChunkCalls: 0,
        readBlockPieces: 2,
        bytesStreamed: 2 * 49 * 16 * KiB,
      });
      const small = Buffer.alloc(10_000);
      await stream.read(3 * MiB + 5, small, 0, small.length);
      expect(small.equals(expected(BLOCKS, small.length, 3 * MiB + 5))).toBe(true);
      expect(stream.stats).toMatchObject({ readBlockCalls: 1, readChunkCalls: 1 });
    } finally {
      stream.close();
    }
  });

  it('ozone.client.stream.readblock.positional.min.size 0 streams a small positional read too, one window', async () => {
    const stream = await open(reader({ streamReadBlockPositionalMinBytes: 0 }), BLOCKS);
    try {
      const small = Buffer.alloc(10_000);
      await stream.read(3 * MiB + 5, small, 0, small.length);
      expect(small.equals(expected(BLOCKS, small.length, 3 * MiB + 5))).toBe(true);
      expect(stream.stats).toMatchObject({
        readBlockCalls: 1,
        readChunkCalls: 0,
        readBlockPieces: 1,
        bytesStreamed: 16 * KiB,
      });
    } finally {
      stream.close();
    }
  });

  it("reads that end on a block's and the key's last byte never ask for an offset at the end (no stall, no failover)", async () => {
    // A request at a block's end would get nothing from a 2.2.0 datanode: with a short piece
    // deadline it would show as a failover.
    const stream = await open(
      reader({ streamReadTimeoutMs: 3_000, streamReadBlockPositionalMinBytes: MiB }),
      BLOCKS,
    );
    try {
      const lengths = [2 * MiB - 5, 5, 2 * MiB, MiB + 3];
      let at = 0;
      for (const n of lengths) {
        const got = Buffer.alloc(n);
        expect(await stream.read(at, got, 0, n)).toBe(n);
        expect(got.equals(expected(BLOCKS, n, at))).toBe(true);
        at += n;
      }
      // Asked past the key's end: the read stops there, and so does the request.
      const tailBytes = MiB + 3;
      const tail = Buffer.alloc(tailBytes + 100);
      expect(await stream.read(BLOCKS.sizeBytes - tailBytes, tail, 0, tail.length)).toBe(tailBytes);
      expect(
        tail.subarray(0, tailBytes).equals(expected(BLOCKS, tailBytes, BLOCKS.sizeBytes - tailBytes)),
      ).toBe(true);
      expect(stream.stats).toMatchObject({ failovers: 0, readChunkCalls: 0 });
    } finally {
      stream.close();
    }
  });

  it('verification off: the same bytes, nothing verified', async () => {
    const stream = await reader().openKey(volume, BUCKET, BLOCKS.key, { verifyChecksum: false });
    try {
      const got = Buffer.alloc(BLOCKS.sizeBytes);
      await stream.read(0, got, 0, got.length);
      expect(got.equals(expected(BLOCKS))).toBe(true);
      expect(stream.stats).toMatchObject({ readBlockCalls: 3, bytesVerified: 0, readChunkCalls: 0 });
    } finally {
      stream.close();
    }
  });

  if (capabilities.corruptReplica) {
    it("a corrupt replica: the piece's checksums catch it, the next replica serves the read, the bad one is reported", async () => {
      const stream = await open(reader(), CORRUPT);
      try {
        const got = Buffer.alloc(CORRUPT.sizeBytes);
        await stream.read(0, got, 0, got.length);
        expect(got.equals(expected(CORRUPT))).toBe(true);
        expect(stream.stats).toMatchObject({
          failovers: 1,
          readBlockCalls: 2,
          readChunkCalls: 0,
          readBlockFallbacks: 0,
        });
        const [block] = (await writer.getKeyInfo(volume, BUCKET, CORRUPT.key)).blocks;
        expect(stream.badReplicas).toEqual([
          {
            datanodeUuid: block?.datanodes[0]?.uuid,
            address: block?.datanodes[0]?.address,
            location: {
              containerId: block?.containerId,
              localId: block?.localId,
              chunkName: `${block?.localId}_chunk_1`,
              offsetInChunk: 32 * KiB,
            },
          },
        ]);
      } finally {
        stream.close();
      }
    });
  }

  if (capabilities.fastpathWrites) {
    it('a block of uneven chunks is read with ReadChunk (counted as a fallback), its bytes right', async () => {
      const stream = await open(reader(), UNEVEN);
      try {
        const got = Buffer.alloc(UNEVEN.sizeBytes);
        await stream.read(0, got, 0, got.length);
        expect(got.equals(expected(UNEVEN))).toBe(true);
        expect(stream.stats.readBlockCalls).toBe(0);
        expect(stream.stats.readBlockFallbacks).toBe(1);
        expect(stream.stats.readChunkCalls).toBeGreaterThanOrEqual(2);
      } finally {
        stream.close();
      }
    });
  }
}
