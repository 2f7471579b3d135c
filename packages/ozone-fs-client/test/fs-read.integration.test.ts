// The file system's input stream against the embedded cluster: widening exactly as
// computeChecksumBoundaries (datanode byte counters), verify off fetching exactly what was asked,
// reads split per chunk and block, the widened window cached and released, concurrent positional
// reads in flight together on one stream, failover and the all-replicas-corrupt error.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { newFileSystemInstance, type OzoneFileSystem } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';

const KiB = 1024;
const MiB = 1024 * KiB;
let cluster: MiniOzoneCluster;
let fs: OzoneFileSystem;
let uri: string;

const bytesRead = (): number => cluster.counters().reduce((n, c) => n + c.bytesRead, 0);
const readChunks = (): number => cluster.counters().reduce((n, c) => n + (c.byCommand.ReadChunk ?? 0), 0);

async function write(path: string, data: Buffer, layout: Record<string, number>): Promise<void> {
  const out = await fs.create(path, layout);
  await out.write(data);
  await out.close();
}

/** Bytes the datanodes served for one positional read on a fresh stream (after GetBlock). */
async function fetchedFor(path: string, position: number, length: number, verify: boolean): Promise<number> {
  fs.setVerifyChecksum(verify);
  const stream = await fs.open(path);
  const buf = Buffer.alloc(length);
  const expected = contractKeyBytes(stream.length, 7).subarray(position, position + length);
  cluster.resetCounters();
  await stream.readFully(position, buf);
  expect(buf.equals(expected)).toBe(true);
  stream.close();
  return bytesRead();
}

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3 });
  uri = `ofs://${cluster.omAddress}`;
  fs = newFileSystemInstance(uri, {
    userName: 'reader',
    config: { readTimeoutMs: 5000, readMaxRetries: 1, readRetryIntervalMs: 10 },
  });
  const size = 5 * MiB;
  await write('/vol/bkt/bpc1m', contractKeyBytes(size, 7), {
    bytesPerChecksum: MiB,
    chunkSizeBytes: 4 * MiB,
  });
  await write('/vol/bkt/bpc16k', contractKeyBytes(size, 7), {
    bytesPerChecksum: 16 * KiB,
    chunkSizeBytes: 4 * MiB,
  });
  await write('/vol/bkt/unit', contractKeyBytes(200 * KiB, 7), {
    bytesPerChecksum: 20 * KiB,
    chunkSizeBytes: 100 * KiB,
  });
  await write('/vol/bkt/split', contractKeyBytes(200_000, 7), {
    bytesPerChecksum: 16 * KiB,
    chunkSizeBytes: 64 * KiB,
    blockSizeBytes: 128 * KiB,
  });
});
beforeEach(() => {
  cluster.clearFaults();
  fs.setVerifyChecksum(true);
});
afterAll(async () => {
  fs?.close();
  await cluster?.close();
});

describe('widening as computeChecksumBoundaries, seen in the datanodes byte counters', () => {
  it("Ozone's unit vector ×1024: chunk 100 KiB, bpc 20 KiB, bytes 0..50 KiB-1 → 0..60 KiB", async () => {
    expect(await fetchedFor('/vol/bkt/unit', 0, 50 * KiB, true)).toBe(60 * KiB);
  });
  it('bpc 1 MiB: a 64 KiB read fetches 1 MiB, or 2 MiB when it straddles a window boundary', async () => {
    expect(await fetchedFor('/vol/bkt/bpc1m', 100_000, 64 * KiB, true)).toBe(MiB);
    expect(await fetchedFor('/vol/bkt/bpc1m', MiB - 1000, 64 * KiB, true)).toBe(2 * MiB);
  });
  it('bpc 16 KiB: 64 KiB aligned → 64 KiB, unaligned → 80 KiB', async () => {
    expect(await fetchedFor('/vol/bkt/bpc16k', 3 * 16 * KiB, 64 * KiB, true)).toBe(64 * KiB);
    expect(await fetchedFor('/vol/bkt/bpc16k', 3 * 16 * KiB + 1, 64 * KiB, true)).toBe(80 * KiB);
  });
  it('verify off: exactly the requested bytes, whatever the bpc', async () => {
    expect(await fetchedFor('/vol/bkt/bpc1m', MiB - 1000, 64 * KiB, false)).toBe(64 * KiB);
    expect(await fetchedFor('/vol/bkt/bpc16k', 3 * 16 * KiB + 1, 64 * KiB, false)).toBe(64 * KiB);
    expect(await fetchedFor('/vol/bkt/unit', 7, 50 * KiB, false)).toBe(50 * KiB);
  });
  it('a read spanning chunks and blocks is one ReadChunk per chunk, each widened on its own', async () => {
    // chunk 64 KiB, bpc 16 KiB, block 128 KiB; bytes 60000..159999:
    // block 0 chunk 0 [60000, 65536) → 49152..65536 (16 KiB); block 0 chunk 1 whole (64 KiB);
    // block 1 chunk 0 [0, 28928) → 0..32768 (32 KiB).
    expect(await fetchedFor('/vol/bkt/split', 60_000, 100_000, true)).toBe(16 * KiB + 64 * KiB + 32 * KiB);
    expect(readChunks()).toBe(3);
  });
});

describe('the widened window', () => {
  it('serves the next sequential reads from the cache and is released when its last byte is read', async () => {
    const stream = await fs.open('/vol/bkt/bpc16k');
    const expected = contractKeyBytes(stream.length, 7);
    cluster.resetCounters();
    const buf = Buffer.alloc(4 * KiB);
    stream.seek(16 * KiB);
    for (let i = 0; i < 4; i++) {
      expect(await stream.read(buf)).toBe(4 * KiB);
      expect(buf.equals(expected.subarray(16 * KiB + i * 4 * KiB, 16 * KiB + (i + 1) * 4 * KiB))).toBe(true);
      // 12, 8, 4, then 0 KiB of the window left unread: held until consumed, then dropped.
      expect(stream.bufferedBytes).toBe(i < 3 ? 16 * KiB : 0);
    }
    expect(bytesRead()).toBe(16 * KiB);
    expect(readChunks()).toBe(1);
    expect(stream.stats.bytesFromCache).toBe(12 * KiB);
    expect(stream.getPos()).toBe(32 * KiB);
    stream.close();
  });

  it('is bounded per stream and dropped by unbuffer()', async () => {
    const stream = await fs.open('/vol/bkt/bpc1m', { windowCacheBytes: 2 * MiB });
    const buf = Buffer.alloc(KiB);
    await stream.readFully(0, buf); // chunk 0: 1 MiB window kept
    await stream.readFully(4 * MiB, buf); // chunk 1: another 1 MiB window
    expect(stream.bufferedBytes).toBe(2 * MiB);
    await stream.readFully(2 * MiB, buf); // chunk 0 again, another window: replaces that chunk's one
    expect(stream.bufferedBytes).toBeLessThanOrEqual(2 * MiB);
    stream.unbuffer();
    expect(stream.bufferedBytes).toBe(0);
    cluster.resetCounters();
    await stream.readFully(4 * MiB + KiB, buf); // was cached before unbuffer: fetched again
    expect(bytesRead()).toBe(MiB);
    stream.close();
  });
});

describe('concurrent positional reads on one shared stream', () => {
  it('16 readers are in flight at the datanode together (no shared cursor, no lock across I/O)', async () => {
    const stream = await fs.open('/vol/bkt/bpc16k');
    const expected = contractKeyBytes(stream.length, 7);
    await stream.readFully(0, Buffer.alloc(1)); // GetBlock done; the replica that answered is tried first
    const uuids = cluster.counters().map((_, i) => i);
    for (const i of uuids) cluster.pauseDatanode(i);
    const reads = Array.from({ length: 16 }, async (_, i) => {
      const buf = Buffer.alloc(64 * KiB);
      const position = 100_000 + i * 250_000;
      await stream.readFully(position, buf);
      return buf.equals(expected.subarray(position, position + buf.length));
    });
    const held = (): number => uuids.reduce((n, i) => n + cluster.datanode(i).heldRequests, 0);
    for (let spins = 0; held() < 16 && spins < 500; spins++) await new Promise((r) => setTimeout(r, 10));
    const overlap = held();
    for (const i of uuids) cluster.resumeDatanode(i);
    expect(await Promise.all(reads)).toEqual(Array(16).fill(true));
    expect(overlap).toBe(16);
    // The cursor of the stream was never touched.
    expect(stream.getPos()).toBe(0);
    stream.close();
  });
});

describe('failover and errors', () => {
  it('a corrupt replica: the verifying stream fails over, returns correct bytes and reports the bad replica', async () => {
    await write('/vol/bkt/corrupt-one', contractKeyBytes(300_000, 7), { bytesPerChecksum: 16 * KiB });
    const bad = await cluster.corruptKeyReplica('vol', 'bkt', 'corrupt-one', 40_000, { replica: 0 });
    const stream = await fs.open('/vol/bkt/corrupt-one');
    const buf = Buffer.alloc(300_000);
    await stream.readFully(0, buf);
    expect(buf.equals(contractKeyBytes(300_000, 7))).toBe(true);
    expect(stream.badReplicas.map((r) => r.datanodeUuid)).toContain(bad);
    expect(stream.badReplicas[0]?.location.offsetInChunk).toBe(32 * KiB);
    stream.close();
  });

  it('every replica corrupt: a ChecksumError naming block, chunk and offset', async () => {
    await write('/vol/bkt/corrupt-all', contractKeyBytes(100_000, 7), { bytesPerChecksum: 16 * KiB });
    for (const replica of [0, 1, 2])
      await cluster.corruptKeyReplica('vol', 'bkt', 'corrupt-all', 50_000, { replica });
    const stream = await fs.open('/vol/bkt/corrupt-all');
    const err = await stream.readFully(0, Buffer.alloc(100_000)).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'ERR_OZONE_FS_CHECKSUM',
      location: { chunkName: expect.stringMatching(/_chunk_1$/), offsetInChunk: 48 * KiB },
    });
    expect((err as Error).message).toMatch(/block \d+\/\d+ chunk \d+_chunk_1 at chunk offset 49152/);
    expect(stream.badReplicas).toHaveLength(3);
    stream.close();
  });

  it('a datanode down: the next replica serves the read', async () => {
    await write('/vol/bkt/down', contractKeyBytes(50_000, 7), {});
    // Its own instance, so that the shared one's channels never see the stopped datanodes.
    const reader = newFileSystemInstance(uri, { userName: 'reader', config: { readTimeoutMs: 5000 } });
    const stream = await reader.open('/vol/bkt/down');
    await stream.readFully(0, Buffer.alloc(10));
    const replicas = (await reader.client.getKeyInfo('vol', 'bkt', 'down')).blocks[0]?.datanodes ?? [];
    // Stop every replica but the last one in pipeline order.
    for (const dn of replicas.slice(0, 2)) await cluster.stopDatanode(dn.uuid);
    try {
      const buf = Buffer.alloc(50_000);
      await stream.readFully(0, buf);
      expect(buf.equals(contractKeyBytes(50_000, 7))).toBe(true);
      expect(stream.stats.failovers).toBeGreaterThanOrEqual(1);
    } finally {
      stream.close();
      reader.close();
      for (const dn of replicas.slice(0, 2)) await cluster.restartDatanode(dn.uuid);
    }
  });

  it('retries are bounded by ozone.client.read.max.retries', async () => {
    await write('/vol/bkt/retries', contractKeyBytes(20_000, 7), {});
    for (let i = 0; i < 3; i++)
      cluster.injectFault(i, { command: 'ReadChunk', result: 'CONTAINER_NOT_FOUND' });
    const stream = await fs.open('/vol/bkt/retries');
    cluster.resetCounters();
    const err = await stream.readFully(0, Buffer.alloc(20_000)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ERR_OZONE_REPLICAS_EXHAUSTED', retriable: true });
    // readMaxRetries 1: two sweeps over three replicas.
    expect(readChunks()).toBe(6);
    stream.close();
  });
});
