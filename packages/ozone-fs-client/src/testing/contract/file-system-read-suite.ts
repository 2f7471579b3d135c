// The file system's read path as one suite, run against every cluster: the embedded mini cluster,
// and Ozone's own MiniOzoneCluster, where the keys are written by Ozone's Java client and the
// corruption is bytes of the block file overwritten in the datanode's data directory.
// setVerifyChecksum per instance with HBase's two-instance pattern, positional reads, the
// widening of verifying reads to checksum windows (in the client's metrics and, where the cluster
// counts them, in the datanodes' own counters), failover, the all-replicas-corrupt error, a
// datanode down and the retry bound.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  newFileSystemInstance,
  type KeyInputStreamStats,
  type OzoneClient,
  type OzoneClientConfig,
  type OzoneFileSystem,
  type OzoneFSInputStream,
  type BadReplicaReport,
} from '../../index.js';
import { contractKeyBytes } from './contract-key-bytes.js';
import type {
  ContractKeySpec,
  OzoneClusterAdapter,
  OzoneContractCapabilities,
  ReadChunkCounters,
} from './ozone-cluster-adapter.js';
import { writeContractKey } from './write-contract-key.js';
import { freshVolume, suiteClient } from './suite-client.js';

const KiB = 1024;
const MiB = 1024 * KiB;

type KeyLayout = Omit<ContractKeySpec, 'volume' | 'bucket'>;

const key = (layout: Partial<KeyLayout> & Pick<KeyLayout, 'key' | 'sizeBytes' | 'seed'>): KeyLayout => ({
  checksumType: 'CRC32',
  bytesPerChecksum: 16 * KiB,
  chunkSizeBytes: 4 * MiB,
  blockSizeBytes: 256 * MiB,
  replication: 'THREE',
  ...layout,
});

/** Three blocks (2 MiB, 2 MiB, 1 MiB + 3 B) of 1 MiB chunks, 16 KiB per checksum: boundaries of every kind. */
const PATTERN = key({
  key: 'pattern',
  sizeBytes: 5 * MiB + 3,
  seed: 41,
  chunkSizeBytes: MiB,
  blockSizeBytes: 2 * MiB,
});
/** Ozone's TestChunkInputStream vector (chunk 100 B, 20 B per checksum) scaled by 1024. */
const UNIT = key({
  key: 'unit',
  sizeBytes: 200 * KiB,
  seed: 42,
  chunkSizeBytes: 100 * KiB,
  bytesPerChecksum: 20 * KiB,
});
/** The source's layout: 4 MiB chunks, 1 MiB per checksum. */
const BPC_1M = key({ key: 'bpc1m', sizeBytes: 5 * MiB, seed: 43, bytesPerChecksum: MiB });
/**
 * HBase's file: four chunks of 64 KiB (the last 1000 B). Replica r has one byte flipped in chunk
 * r (r = 0, 1, 2), so every chunk has exactly one corrupt replica and two good ones, and every
 * replica holds exactly one corrupt byte. A reader that does not verify returns the bytes of the
 * one replica it reads, whichever that is, and they differ from the written bytes in exactly
 * that replica's byte: so the test knows which replica it read without relying on the order the
 * OM lists them in. A verifying reader finds the bad chunk of the replica it starts on and fails
 * over to another replica, good for that chunk.
 */
const HFILE = key({
  key: 'hfile',
  sizeBytes: 3 * 64 * KiB + 1000,
  seed: 44,
  chunkSizeBytes: 64 * KiB,
});
/** Inside window 2 (32-48 KiB) of chunk r, for replica r. */
const HFILE_CORRUPT_AT: readonly number[] = [40_000, 64 * KiB + 40_000, 128 * KiB + 40_000];
/** Replica 0, the first one tried, corrupt at 40000 (window 2 of chunk 1). */
const CORRUPT_ONE = key({ key: 'corrupt-one', sizeBytes: 300_000, seed: 45 });
/** Every replica corrupt at 50000 (window 3 of chunk 1, from 49152). */
const CORRUPT_ALL = key({ key: 'corrupt-all', sizeBytes: 100_000, seed: 46 });
const DOWN = key({ key: 'down', sizeBytes: 100_000, seed: 47 });
/** One replica: stopping its datanode leaves nothing to fail over to. */
const SINGLE = key({ key: 'single', sizeBytes: 20_000, seed: 48, replication: 'ONE' });

const expected = (k: KeyLayout, length = k.sizeBytes, position = 0): Buffer =>
  contractKeyBytes(length, k.seed, position);

/** What one whole-file or ranged read on a fresh stream did. */
interface ReadResult {
  data: Buffer;
  stats: KeyInputStreamStats;
  badReplicas: readonly BadReplicaReport[];
  verifyChecksum: boolean;
  /** The datanodes' own ReadChunk counts for this read (clusters that have counters). */
  datanodes?: ReadChunkCounters;
}

/**
 * Registers the file-system read suite. Call it inside a `describe` whose `beforeAll` starts the
 * cluster; `adapter()` is called after that. Keys go into a fresh volume of their own.
 *
 * @example
 * ```ts
 * describe('embedded mini cluster', () => {
 *   let cluster: MiniOzoneCluster;
 *   beforeAll(async () => (cluster = await startMiniOzoneCluster()));
 *   afterAll(() => cluster.close());
 *   describeFileSystemReads(() => miniClusterAdapter(cluster), MINI_CLUSTER_CAPABILITIES);
 * });
 * ```
 */
export function describeFileSystemReads(
  adapter: () => OzoneClusterAdapter,
  capabilities: OzoneContractCapabilities,
): void {
  const BUCKET = 'reads';
  let volume = '';
  let client: OzoneClient;
  const instances: OzoneFileSystem[] = [];
  const path = (k: KeyLayout): string => `/${volume}/${BUCKET}/${k.key}`;

  /** A new, uncached instance (HBase's `FileSystem.newInstance`), closed after the suite. */
  function newFs(
    options: { config?: Partial<OzoneClientConfig>; properties?: Record<string, string> } = {},
  ): OzoneFileSystem {
    const a = adapter();
    // The cluster's own properties (its OM HA settings) under the test's.
    const properties = {
      ...(a.clientOptions?.properties as Record<string, string> | undefined),
      ...options.properties,
    };
    const fs = newFileSystemInstance(`ofs://${a.omAddress}`, {
      userName: 'reader',
      ...(a.tls ? { tls: a.tls } : {}),
      ...(Object.keys(properties).length > 0 ? { properties } : {}),
      config: { readRetryIntervalMs: 0, ...a.clientOptions?.config, ...options.config },
    });
    instances.push(fs);
    return fs;
  }

  async function datanodeCounters(): Promise<ReadChunkCounters | undefined> {
    return capabilities.datanodeCounters ? adapter().readChunkCounters?.() : undefined;
  }

  /** Reads `length` bytes at `position` of `k` on a fresh stream of `fs`, with the counts of that read. */
  async function readOnce(
    fs: OzoneFileSystem,
    k: KeyLayout,
    position = 0,
    length = k.sizeBytes,
  ): Promise<ReadResult> {
    const stream = await fs.open(path(k));
    try {
      const data = Buffer.alloc(length);
      const before = await datanodeCounters();
      await stream.readFully(position, data);
      const after = await datanodeCounters();
      return {
        data,
        stats: { ...stream.stats },
        badReplicas: [...stream.badReplicas],
        verifyChecksum: stream.verifyChecksum,
        ...(before && after
          ? { datanodes: { calls: after.calls - before.calls, bytes: after.bytes - before.bytes } }
          : {}),
      };
    } finally {
      stream.close();
    }
  }

  /** The fetched bytes and ReadChunk calls of a read, as the client and (where counted) the datanodes saw them. */
  function expectFetched(result: ReadResult, bytes: number, calls: number): void {
    expect({ bytes: result.stats.bytesFetched, calls: result.stats.readChunkCalls }).toEqual({
      bytes,
      calls,
    });
    if (capabilities.datanodeCounters) expect(result.datanodes).toEqual({ bytes, calls });
  }

  async function replicaUuids(k: KeyLayout): Promise<string[]> {
    const details = await client.getKeyInfo(volume, BUCKET, k.key);
    return (details.blocks[0]?.datanodes ?? []).map((d) => d.uuid);
  }

  /**
   * Which replica of HFILE `data` was read from: it must be the written bytes with exactly one
   * byte flipped, at one replica's corruption point.
   */
  function storedReplicaOf(data: Buffer): number {
    const good = expected(HFILE);
    const differing: number[] = [];
    for (let i = 0; i < good.length; i++) if (data[i] !== good[i]) differing.push(i);
    expect(differing).toHaveLength(1);
    const at = differing[0] as number;
    expect(HFILE_CORRUPT_AT).toContain(at);
    expect(data[at]).toBe((good[at] as number) ^ 0xff);
    return HFILE_CORRUPT_AT.indexOf(at);
  }

  beforeAll(async () => {
    const a = adapter();
    client = suiteClient(a);
    volume = await freshVolume(client, 'fr', BUCKET);
    const keys = [PATTERN, UNIT, BPC_1M, HFILE, CORRUPT_ONE, CORRUPT_ALL, DOWN, SINGLE];
    for (const k of keys) await writeContractKey(a, client, { volume, bucket: BUCKET, ...k });
    if (capabilities.corruptReplica) {
      const at = (k: KeyLayout, offsetInKey: number, replica: number) =>
        a.corruptReplica?.({ volume, bucket: BUCKET, key: k.key, offsetInKey, replica });
      for (const [replica, offset] of HFILE_CORRUPT_AT.entries()) await at(HFILE, offset, replica);
      await at(CORRUPT_ONE, 40_000, 0);
      for (const replica of [0, 1, 2]) await at(CORRUPT_ALL, 50_000, replica);
    }
  });
  afterAll(() => {
    for (const fs of instances) fs.close();
    client?.close();
  });

  if (capabilities.corruptReplica) {
    describe("setVerifyChecksum per instance, and HBase's HFileSystem pattern", () => {
      it('the no-checksum instance returns the bytes as stored; the verifying one returns correct bytes through failover and reports the bad replica', async () => {
        const verifying = newFs();
        const noChecksum = newFs();
        noChecksum.setVerifyChecksum(false);
        expect([verifying.getVerifyChecksum(), noChecksum.getVerifyChecksum()]).toEqual([true, false]);

        const raw = await readOnce(noChecksum, HFILE);
        const readFrom = storedReplicaOf(raw.data);
        // Nothing checked, nothing widened, nothing failed over: exactly the file's bytes fetched.
        expect(raw.stats).toMatchObject({ bytesVerified: 0, failovers: 0, bytesFetched: HFILE.sizeBytes });

        const good = await readOnce(verifying, HFILE);
        expect(good.data.equals(expected(HFILE))).toBe(true);
        expect(good.stats.failovers).toBeGreaterThanOrEqual(1);
        // The replica the no-checksum instance read is the one the verifying instance tried
        // first (both start at the pipeline's first member) and found bad, in its corrupt chunk.
        const uuids = await replicaUuids(HFILE);
        expect(good.badReplicas[0]).toMatchObject({
          datanodeUuid: uuids[readFrom],
          location: {
            chunkName: expect.stringMatching(new RegExp(`_chunk_${readFrom + 1}$`)),
            offsetInChunk: 32 * KiB,
          },
        });
        for (const bad of good.badReplicas) {
          const replica = uuids.indexOf(bad.datanodeUuid);
          expect(bad.location.chunkName).toMatch(new RegExp(`_chunk_${replica + 1}$`));
        }
      });

      it('a stream keeps the flag it was opened with; another instance is unaffected; new streams follow the switch', async () => {
        const fs = newFs();
        const other = newFs();
        const openedOn = await fs.open(path(HFILE));
        fs.setVerifyChecksum(false);
        const openedOff = await fs.open(path(HFILE));
        fs.setVerifyChecksum(true);
        const openedOnAgain = await fs.open(path(HFILE));
        fs.setVerifyChecksum(false);
        expect([openedOn, openedOff, openedOnAgain].map((s) => s.verifyChecksum)).toEqual([
          true,
          false,
          true,
        ]);
        const whole = async (s: OzoneFSInputStream): Promise<Buffer> => {
          const b = Buffer.alloc(HFILE.sizeBytes);
          await s.readFully(0, b);
          return b;
        };
        // Read after the last switch (to off): the streams still do what they were opened with.
        expect((await whole(openedOn)).equals(expected(HFILE))).toBe(true);
        expect(openedOn.stats.bytesVerified).toBeGreaterThanOrEqual(HFILE.sizeBytes);
        storedReplicaOf(await whole(openedOff));
        expect(openedOff.stats.bytesVerified).toBe(0);
        expect((await whole(openedOnAgain)).equals(expected(HFILE))).toBe(true);
        for (const s of [openedOn, openedOff, openedOnAgain]) s.close();
        expect(other.getVerifyChecksum()).toBe(true);
        const viaOther = await readOnce(other, HFILE);
        expect(viaOther.verifyChecksum).toBe(true);
        expect(viaOther.data.equals(expected(HFILE))).toBe(true);
        expect(storedReplicaOf((await readOnce(fs, HFILE)).data)).toBeGreaterThanOrEqual(0);
      });

      it('ozone.client.verify.checksum=false is still the default of new instances, and the switch overrides it per instance', async () => {
        const off = newFs({ properties: { 'ozone.client.verify.checksum': 'false' } });
        const plain = newFs();
        expect([off.getVerifyChecksum(), plain.getVerifyChecksum()]).toEqual([false, true]);
        const raw = await readOnce(off, HFILE);
        expect(raw.verifyChecksum).toBe(false);
        storedReplicaOf(raw.data);
        expect((await readOnce(plain, HFILE)).data.equals(expected(HFILE))).toBe(true);
        off.setVerifyChecksum(true);
        const verified = await readOnce(off, HFILE);
        expect(verified.data.equals(expected(HFILE))).toBe(true);
        expect(verified.stats.bytesVerified).toBeGreaterThanOrEqual(HFILE.sizeBytes);
      });
    });
  }

  describe('positional reads return the bytes of their offset', () => {
    const size = PATTERN.sizeBytes;
    const cases: Array<[string, number, number]> = [
      ['the first byte', 0, 1],
      ['the last byte of the first checksum window', 16 * KiB - 1, 1],
      ['across a checksum window boundary', 16 * KiB - 3, 6],
      ['the last byte of a chunk', MiB - 1, 1],
      ['across a chunk boundary', MiB - 10, 20],
      ['across a block boundary', 2 * MiB - 10, 20],
      ['across two block boundaries', 2 * MiB - 100, 2 * MiB + 200],
      ['the 3-byte last chunk', 5 * MiB, 3],
      ['the whole file', 0, size],
    ];
    it.each(cases)('%s, verifying and not', async (_name, position, length) => {
      const fs = newFs();
      for (const verify of [true, false]) {
        fs.setVerifyChecksum(verify);
        const r = await readOnce(fs, PATTERN, position, length);
        expect(r.data.equals(expected(PATTERN, length, position))).toBe(true);
      }
    });

    it('read(position, buffer, offset, length) fills only its range, is short at the end and -1 past it', async () => {
      const stream = await newFs().open(path(PATTERN));
      const buf = Buffer.alloc(100, 0xee);
      expect(await stream.read(2 * MiB - 20, buf, 10, 50)).toBe(50);
      expect(buf.subarray(10, 60).equals(expected(PATTERN, 50, 2 * MiB - 20))).toBe(true);
      expect([...buf.subarray(0, 10), ...buf.subarray(60)].every((b) => b === 0xee)).toBe(true);
      expect(await stream.read(size - 5, buf, 0, 100)).toBe(5);
      expect(buf.subarray(0, 5).equals(expected(PATTERN, 5, size - 5))).toBe(true);
      expect(await stream.read(size, buf, 0, 1)).toBe(-1);
      await expect(stream.readFully(size - 5, Buffer.alloc(10))).rejects.toMatchObject({
        code: 'ERR_OZONE_FS_EOF',
      });
      expect(stream.getPos()).toBe(0);
      stream.close();
    });

    it('the cursor: seek, read and getPos, untouched by positional reads', async () => {
      const stream = await newFs().open(path(PATTERN));
      const buf = Buffer.alloc(12);
      stream.seek(MiB - 6);
      expect(await stream.read(buf)).toBe(12);
      expect(buf.equals(expected(PATTERN, 12, MiB - 6))).toBe(true);
      await stream.readFully(4 * MiB, Buffer.alloc(7));
      expect(stream.getPos()).toBe(MiB + 6);
      expect(await stream.read(buf)).toBe(12);
      expect(buf.equals(expected(PATTERN, 12, MiB + 6))).toBe(true);
      stream.seek(size - 4);
      expect(await stream.read(buf)).toBe(4);
      expect(buf.subarray(0, 4).equals(expected(PATTERN, 4, size - 4))).toBe(true);
      expect(await stream.read(buf)).toBe(-1);
      expect(stream.getPos()).toBe(size);
      stream.close();
    });

    it('16 concurrent positional reads on one shared stream: every one sent before the first answer, each gets its own bytes', async () => {
      const stream = await newFs().open(path(PATTERN));
      // GetBlock of every block first, so that each read's ReadChunk goes out at once.
      for (const at of [0, 2 * MiB, 4 * MiB]) await stream.readFully(at, Buffer.alloc(1));
      stream.unbuffer();
      const sentBefore = stream.stats.readChunkCalls;
      // The overlap, counted not timed: a stream that serialised positional reads (Java's
      // FSInputStream holds its monitor across the I/O) would have sent 1 ReadChunk when the
      // first read completes; one that does not has sent a ReadChunk for every read by then.
      let sentAtFirstAnswer: number | undefined;
      const reads = Array.from({ length: 16 }, async (_, i) => {
        const position = (i * 333_331) % (size - 70_000);
        const buf = Buffer.alloc(65_536 + i);
        await stream.readFully(position, buf);
        sentAtFirstAnswer ??= stream.stats.readChunkCalls - sentBefore;
        return buf.equals(expected(PATTERN, buf.length, position));
      });
      expect(await Promise.all(reads)).toEqual(Array.from({ length: 16 }, () => true));
      expect(sentAtFirstAnswer).toBeGreaterThanOrEqual(16);
      expect(stream.getPos()).toBe(0);
      stream.close();
    });
  });

  describe(`widening to checksum windows as computeChecksumBoundaries, in the client's metrics${capabilities.datanodeCounters ? " and the datanodes' own counters" : ''}`, () => {
    it("Ozone's unit vector ×1024: chunk 100 KiB, 20 KiB per checksum, bytes 0..50 KiB-1 → 0..60 KiB", async () => {
      const fs = newFs();
      expectFetched(await readOnce(fs, UNIT, 0, 50 * KiB), 60 * KiB, 1);
      fs.setVerifyChecksum(false);
      expectFetched(await readOnce(fs, UNIT, 7, 50 * KiB), 50 * KiB, 1);
    });

    it('1 MiB per checksum: a 64 KiB read fetches 1 MiB, or 2 MiB when it straddles a window boundary', async () => {
      const fs = newFs();
      const inside = await readOnce(fs, BPC_1M, 100_000, 64 * KiB);
      expect(inside.data.equals(expected(BPC_1M, 64 * KiB, 100_000))).toBe(true);
      expectFetched(inside, MiB, 1);
      expect(inside.stats.bytesVerified).toBe(MiB);
      expectFetched(await readOnce(fs, BPC_1M, MiB - 1000, 64 * KiB), 2 * MiB, 1);
    });

    it('16 KiB per checksum: 64 KiB aligned → 64 KiB, unaligned → 80 KiB', async () => {
      const fs = newFs();
      expectFetched(await readOnce(fs, PATTERN, 3 * 16 * KiB, 64 * KiB), 64 * KiB, 1);
      expectFetched(await readOnce(fs, PATTERN, 3 * 16 * KiB + 1, 64 * KiB), 80 * KiB, 1);
    });

    it('verification off: exactly the requested bytes, whatever the bytes per checksum', async () => {
      const fs = newFs();
      fs.setVerifyChecksum(false);
      const off = await readOnce(fs, BPC_1M, MiB - 1000, 64 * KiB);
      expect(off.data.equals(expected(BPC_1M, 64 * KiB, MiB - 1000))).toBe(true);
      expectFetched(off, 64 * KiB, 1);
      expect(off.stats.bytesVerified).toBe(0);
      expectFetched(await readOnce(fs, PATTERN, 3 * 16 * KiB + 1, 64 * KiB), 64 * KiB, 1);
    });

    it('a read across chunks and blocks is one ReadChunk per chunk, each widened on its own', async () => {
      // Bytes [1 MiB - 1000, 2 MiB + 5000): block 0 chunk 0 [1 MiB - 1000, 1 MiB) → its last
      // window (16 KiB); block 0 chunk 1 whole (1 MiB); block 1 chunk 0 [0, 5000) → 16 KiB.
      const r = await readOnce(newFs(), PATTERN, MiB - 1000, MiB + 6000);
      expect(r.data.equals(expected(PATTERN, MiB + 6000, MiB - 1000))).toBe(true);
      expectFetched(r, 16 * KiB + MiB + 16 * KiB, 3);
    });

    it('the widened window serves the next sequential reads and is released when its last byte is read', async () => {
      const stream = await newFs().open(path(PATTERN));
      const before = await datanodeCounters();
      const buf = Buffer.alloc(4 * KiB);
      stream.seek(16 * KiB);
      for (let i = 0; i < 4; i++) {
        expect(await stream.read(buf)).toBe(4 * KiB);
        expect(buf.equals(expected(PATTERN, 4 * KiB, 16 * KiB + i * 4 * KiB))).toBe(true);
        // 12, 8, 4, then 0 KiB of the window unread: held until consumed, then dropped.
        expect(stream.bufferedBytes).toBe(i < 3 ? 16 * KiB : 0);
      }
      const after = await datanodeCounters();
      expect(stream.stats).toMatchObject({
        bytesFetched: 16 * KiB,
        readChunkCalls: 1,
        bytesFromCache: 12 * KiB,
      });
      if (before && after)
        expect({ calls: after.calls - before.calls, bytes: after.bytes - before.bytes }).toEqual({
          calls: 1,
          bytes: 16 * KiB,
        });
      stream.close();
    });

    it.each([
      ['verification on', true],
      ['verification off', false],
    ])(
      'a read that continues the last reads ahead to its chunk end, %s: a ReadChunk per chunk, not per read',
      async (_, verify) => {
        // PATTERN's first block: chunks [0, 1 MiB) and [1 MiB, 2 MiB), read in 64 KiB reads. The
        // first read asks only its own bytes; the second (continuing it) asks the rest of chunk 0
        // (960 KiB, up to 1 MiB of read-ahead), the 17th all of chunk 1; the others are served
        // from the kept windows.
        const reads = 32;
        const run = async (fs: OzoneFileSystem) => {
          fs.setVerifyChecksum(verify);
          const stream = await fs.open(path(PATTERN));
          const before = await datanodeCounters();
          const buf = Buffer.alloc(64 * KiB);
          for (let i = 0; i < reads; i++) {
            expect(await stream.read(buf)).toBe(64 * KiB);
            expect(buf.equals(expected(PATTERN, 64 * KiB, i * 64 * KiB))).toBe(true);
          }
          const after = await datanodeCounters();
          const stats = { ...stream.stats };
          stream.close();
          const datanodes =
            before && after
              ? { calls: after.calls - before.calls, bytes: after.bytes - before.bytes }
              : undefined;
          return { stats, datanodes };
        };
        const ahead = await run(newFs());
        expect(ahead.stats).toMatchObject({
          readChunkCalls: 3,
          bytesFetched: 2 * MiB,
          bytesFromCache: 29 * 64 * KiB,
        });
        if (ahead.datanodes) expect(ahead.datanodes).toEqual({ calls: 3, bytes: 2 * MiB });
        // 0: Ozone's ChunkInputStream, a ReadChunk per read.
        const none = await run(newFs({ properties: { 'ozone.client.read.chunk.readahead': '0' } }));
        expect(none.stats).toMatchObject({ readChunkCalls: reads, bytesFetched: 2 * MiB, bytesFromCache: 0 });
        if (none.datanodes) expect(none.datanodes).toEqual({ calls: reads, bytes: 2 * MiB });
      },
    );

    it('a positional read elsewhere in the key reads no further than it asks', async () => {
      const stream = await newFs().open(path(PATTERN));
      const buf = Buffer.alloc(64 * KiB);
      await stream.readFully(0, buf);
      await stream.readFully(512 * KiB, buf); // not where the last read ended
      await stream.readFully(256 * KiB, buf);
      expect(stream.stats).toMatchObject({
        readChunkCalls: 3,
        bytesFetched: 3 * 64 * KiB,
        bytesFromCache: 0,
      });
      stream.close();
    });

    it('the windows are bounded per stream and dropped by unbuffer()', async () => {
      const stream = await newFs().open(path(BPC_1M), { windowCacheBytes: 2 * MiB });
      const buf = Buffer.alloc(KiB);
      await stream.readFully(0, buf); // chunk 0: a 1 MiB window kept
      await stream.readFully(4 * MiB, buf); // chunk 1: another
      expect(stream.bufferedBytes).toBe(2 * MiB);
      await stream.readFully(2 * MiB, buf); // chunk 0 again, another window: replaces that chunk's
      expect(stream.bufferedBytes).toBeLessThanOrEqual(2 * MiB);
      stream.unbuffer();
      expect(stream.bufferedBytes).toBe(0);
      const fetchedBefore = stream.stats.bytesFetched;
      const before = await datanodeCounters();
      await stream.readFully(4 * MiB + KiB, buf); // was cached before unbuffer(): fetched again
      const after = await datanodeCounters();
      expect(buf.equals(expected(BPC_1M, KiB, 4 * MiB + KiB))).toBe(true);
      expect(stream.stats.bytesFetched - fetchedBefore).toBe(MiB);
      if (before && after) expect(after.bytes - before.bytes).toBe(MiB);
      stream.close();
    });
  });

  describe('failover and errors', () => {
    if (capabilities.corruptReplica) {
      it('a corrupt replica: the verifying stream fails over, returns correct bytes and reports the bad replica', async () => {
        const r = await readOnce(newFs(), CORRUPT_ONE);
        expect(r.data.equals(expected(CORRUPT_ONE))).toBe(true);
        expect(r.stats.failovers).toBe(1);
        const [block] = (await client.getKeyInfo(volume, BUCKET, CORRUPT_ONE.key)).blocks;
        expect(r.badReplicas).toEqual([
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
      });

      it('every replica corrupt: a ChecksumError naming the block, the chunk and the offset', async () => {
        const stream = await newFs().open(path(CORRUPT_ALL));
        const err = await stream.readFully(0, Buffer.alloc(CORRUPT_ALL.sizeBytes)).catch((e: unknown) => e);
        const [block] = (await client.getKeyInfo(volume, BUCKET, CORRUPT_ALL.key)).blocks;
        expect(err).toMatchObject({
          code: 'ERR_OZONE_FS_CHECKSUM',
          location: {
            containerId: block?.containerId,
            localId: block?.localId,
            chunkName: `${block?.localId}_chunk_1`,
            offsetInChunk: 48 * KiB,
          },
        });
        expect((err as Error).message).toContain(
          `block ${block?.containerId}/${block?.localId} chunk ${block?.localId}_chunk_1 at chunk offset 49152`,
        );
        expect(new Set(stream.badReplicas.map((b) => b.datanodeUuid))).toEqual(
          new Set(block?.datanodes.map((d) => d.uuid)),
        );
        stream.close();
      });
    }

    if (capabilities.stopDatanode) {
      it('a datanode down: the next replica serves the read', async () => {
        const fs = newFs({ config: { readTimeoutMs: 10_000 } });
        const stream = await fs.open(path(DOWN));
        await stream.readFully(0, Buffer.alloc(10)); // GetBlock answered: replica 0 is tried first
        const restart = await adapter().stopReplica?.({ volume, bucket: BUCKET, key: DOWN.key, replica: 0 });
        try {
          const buf = Buffer.alloc(DOWN.sizeBytes);
          await stream.readFully(0, buf);
          expect(buf.equals(expected(DOWN))).toBe(true);
          expect(stream.stats.failovers).toBeGreaterThanOrEqual(1);
        } finally {
          stream.close();
          await restart?.();
        }
      });

      it('retries are bounded by ozone.client.read.max.retries: every replica down, 1 + 2 sweeps, then a retriable error', async () => {
        const fs = newFs({ config: { readMaxRetries: 2, readRetryIntervalMs: 10, readTimeoutMs: 10_000 } });
        const stream = await fs.open(path(SINGLE));
        const restart = await adapter().stopReplica?.({
          volume,
          bucket: BUCKET,
          key: SINGLE.key,
          replica: 0,
        });
        try {
          const err = await stream.readFully(0, Buffer.alloc(SINGLE.sizeBytes)).catch((e: unknown) => e);
          expect(err).toMatchObject({ code: 'ERR_OZONE_REPLICAS_EXHAUSTED', retriable: true });
          const attempts = (err as { attempts: Array<{ code: string }> }).attempts;
          expect(attempts).toHaveLength(3);
          for (const a of attempts)
            expect(['ERR_OZONE_UNAVAILABLE', 'ERR_OZONE_DEADLINE_EXCEEDED']).toContain(a.code);
          expect(stream.stats.failovers).toBe(3);
        } finally {
          stream.close();
          await restart?.();
        }
        // Back up, it serves the key again within a few retry intervals: the channels' reconnect
        // backoff is bounded by the interval (100 ms here). gRPC's own backoff (1 s after the
        // first failed connection attempt, growing 1.6× with each one while the datanode was down,
        // shared by every channel to the address) failed every retry of this read.
        const again = newFs({ config: { readMaxRetries: 3, readRetryIntervalMs: 100 } });
        expect((await readOnce(again, SINGLE)).data.equals(expected(SINGLE))).toBe(true);
      });
    }
  });
}
