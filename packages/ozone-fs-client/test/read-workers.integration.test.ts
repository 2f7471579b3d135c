// Reads on worker threads (`ozone.client.read.worker.threads`) against the embedded cluster: the
// same bytes, counters and errors as reads on the caller's thread, for many concurrent distinct
// reads with verification on and off, into ordinary and shared memory; a worker that dies with
// reads on it (they go to another worker once, then fail typed); close; a process that never
// closes its client still exits.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { systemClock } from '@fastpath/core';
import {
  ChecksumError,
  createOzoneClient,
  KeyInputStream,
  newFileSystemInstance,
  OzoneClosedError,
  ReadWorkerError,
  ReplicasExhaustedError,
  type OzoneClient,
} from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes, runScriptUntilExit } from '@fastpath/ozone-fs-client/testing/contract';
import { waitFor } from '@fastpath/test-support';
import { createReadContext } from '../src/internal/read-context.js';
import { ReadWorkerPool } from '../src/internal/workers/read-worker-pool.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const VOLUME = 'vol';
const BUCKET = 'workers';
/** Several blocks of 1 MiB chunks, 16 KiB windows; and one block with 1 MiB windows. */
const KEYS = {
  small: {
    size: 10 * MiB,
    seed: 71,
    layout: { bytesPerChecksum: 16 * KiB, chunkSizeBytes: MiB, blockSizeBytes: 4 * MiB },
  },
  wide: { size: 6 * MiB, seed: 72, layout: { bytesPerChecksum: MiB, chunkSizeBytes: MiB } },
} as const;
// Worker threads start by compiling the sources (tsx) here: slow on a loaded machine.
const SLOW = 180_000;

let cluster: MiniOzoneCluster;
let writer: OzoneClient;
let inThread: OzoneClient;
let workers: OzoneClient;

/** 64 distinct ranges, of 64 different lengths, many across chunk or block boundaries. */
function distinctRanges(size: number, count = 64): Array<{ position: number; length: number }> {
  return Array.from({ length: count }, (_, i) => {
    const length = 1 + ((i * 7919 + 13) % (300 * KiB));
    return { position: (i * 1_000_003 + 511 * i * i) % (size - length), length };
  });
}

/** Reads every range at once into its own buffer, at an offset of 3 bytes. */
async function readAll(
  stream: KeyInputStream,
  ranges: ReadonlyArray<{ position: number; length: number }>,
): Promise<Buffer[]> {
  return Promise.all(
    ranges.map(async ({ position, length }) => {
      const target = Buffer.alloc(length + 3);
      expect(await stream.read(position, target, 3, length)).toBe(length);
      return target.subarray(3);
    }),
  );
}

const pick = (s: KeyInputStream): Record<string, number> => ({
  bytesFetched: s.stats.bytesFetched,
  bytesVerified: s.stats.bytesVerified,
  readChunkCalls: s.stats.readChunkCalls,
  failovers: s.stats.failovers,
});

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3 });
  writer = createOzoneClient({ omAddress: cluster.omAddress, userName: 'writer' });
  await writer.createVolume(VOLUME);
  await writer.createBucket(VOLUME, BUCKET);
  for (const [key, k] of Object.entries(KEYS))
    await writer.writeKey(VOLUME, BUCKET, key, contractKeyBytes(k.size, k.seed), k.layout);
  inThread = createOzoneClient({ omAddress: cluster.omAddress, userName: 'reader' });
  workers = createOzoneClient({
    omAddress: cluster.omAddress,
    userName: 'reader',
    config: { readWorkerThreads: 2 },
  });
}, SLOW);

afterAll(async () => {
  writer?.close();
  inThread?.close();
  workers?.close();
  await cluster?.close();
});

describe('reads on worker threads', () => {
  for (const verifyChecksum of [true, false])
    for (const key of ['small', 'wide'] as const)
      it(
        `64 concurrent distinct reads, verify ${verifyChecksum ? 'on' : 'off'}, ${key === 'small' ? '16 KiB' : '1 MiB'} windows: ` +
          'the same bytes and counters as on the caller thread',
        async () => {
          const { size, seed } = KEYS[key];
          const expected = contractKeyBytes(size, seed);
          const ranges = distinctRanges(size);
          const options = { verifyChecksum, windowCacheBytes: 0 };
          const local = await inThread.openKey(VOLUME, BUCKET, key, options);
          const remote = await workers.openKey(VOLUME, BUCKET, key, options);
          const [mine, theirs] = await Promise.all([readAll(local, ranges), readAll(remote, ranges)]);
          ranges.forEach(({ position, length }, i) => {
            const want = expected.subarray(position, position + length);
            expect({ i, local: mine[i]?.equals(want), remote: theirs[i]?.equals(want) }).toEqual({
              i,
              local: true,
              remote: true,
            });
          });
          expect(pick(remote)).toEqual(pick(local));
          expect(remote.stats.bytesVerified > 0).toBe(verifyChecksum);
          local.close();
          remote.close();
          // The reads ran on the workers: the client's own datanode channels carried none of them.
          expect(workers.readWorkerStats).toMatchObject({ started: 2, running: 2, crashed: 0, inFlight: 0 });
          expect(workers.datanodeStreamStats.opened).toBe(0);
          expect(inThread.datanodeStreamStats.opened).toBeGreaterThan(0);
        },
        SLOW,
      );

  it(
    'reads into shared memory the caller gave, at its offsets',
    async () => {
      const { size, seed } = KEYS.small;
      const expected = contractKeyBytes(size, seed);
      const ranges = distinctRanges(size, 16);
      const total = ranges.reduce((n, r) => n + r.length, 0);
      const shared = new Uint8Array(new SharedArrayBuffer(total + 64), 32, total);
      const stream = await workers.openKey(VOLUME, BUCKET, 'small');
      let at = 0;
      await Promise.all(
        ranges.map(({ position, length }) => {
          const offset = at;
          at += length;
          return stream.read(position, shared, offset, length);
        }),
      );
      at = 0;
      for (const { position, length } of ranges) {
        expect(
          Buffer.from(shared.subarray(at, at + length)).equals(
            expected.subarray(position, position + length),
          ),
        ).toBe(true);
        at += length;
      }
      stream.close();
    },
    SLOW,
  );

  it(
    'every replica corrupt: the same typed errors, bad replicas and ChecksumError as on the caller thread',
    async () => {
      const key = 'corrupt';
      await writer.writeKey(VOLUME, BUCKET, key, contractKeyBytes(2 * MiB, 73), KEYS.small.layout);
      for (let replica = 0; replica < 3; replica++)
        await cluster.corruptKeyReplica(VOLUME, BUCKET, key, 100 * KiB + replica, { replica });
      const outcome = async (client: OzoneClient): Promise<unknown> => {
        const stream = await client.openKey(VOLUME, BUCKET, key);
        const err = await stream.readFully(90 * KiB, 32 * KiB).then(
          () => new Error('the read succeeded'),
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ReplicasExhaustedError);
        const e = err as ReplicasExhaustedError;
        stream.close();
        return {
          code: e.code,
          retriable: e.retriable,
          message: e.message,
          attempts: e.attempts.map((a) => ({
            type: a.constructor.name,
            ...(a as unknown as Record<string, unknown>),
          })),
          bad: stream.badReplicas.map((b) => b.datanodeUuid).sort(),
        };
      };
      expect(await outcome(workers)).toEqual(await outcome(inThread));
      const fs = newFileSystemInstance(`ofs://${cluster.omAddress}`, {
        userName: 'reader',
        config: { readWorkerThreads: 1 },
      });
      try {
        const file = await fs.open(`/${VOLUME}/${BUCKET}/${key}`);
        const err = await file.readFully(90 * KiB, Buffer.alloc(32 * KiB)).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ChecksumError);
        expect((err as ChecksumError).code).toBe('ERR_OZONE_FS_CHECKSUM');
      } finally {
        fs.close();
      }
    },
    SLOW,
  );

  describe('a worker that ends with reads on it', () => {
    type Outcome = { position: number; data: Buffer } | Error;

    /**
     * `count` reads of a stream on a pool of `threads` workers, held on the workers by paused
     * datanodes while `test` runs; the datanodes are resumed and everything closed afterwards.
     */
    async function withHeldReads(
      threads: number,
      count: number,
      test: (pool: ReadWorkerPool, reads: Promise<Outcome[]>, stream: KeyInputStream) => Promise<void>,
    ): Promise<void> {
      const options = { config: workers.config, tls: undefined, maxReceiveBytes: 32 * MiB };
      const pool = new ReadWorkerPool(threads, options);
      const ctx = createReadContext(options, systemClock);
      const details = await workers.getKeyInfo(VOLUME, BUCKET, 'small');
      const stream = new KeyInputStream(ctx, details.blocks, details.sizeBytes, true, {
        windowCacheBytes: 0,
        workers: pool,
      });
      try {
        for (let d = 0; d < 3; d++) cluster.pauseDatanode(d);
        const reads = Promise.all(
          distinctRanges(KEYS.small.size, count).map(({ position, length }) =>
            stream.readFully(position, length).then(
              (data) => ({ position, data }),
              (e: unknown) => e as Error,
            ),
          ),
        );
        await waitFor(`${count} reads on the workers`, () => pool.stats.inFlight === count, {
          timeoutMs: SLOW,
        });
        await test(pool, reads, stream);
      } finally {
        for (let d = 0; d < 3; d++) cluster.resumeDatanode(d);
        stream.close();
        pool.close();
        ctx.datanodes.close();
      }
    }

    const expected = (): Buffer => contractKeyBytes(KEYS.small.size, KEYS.small.seed);

    it(
      'its reads are sent to another worker and answered with the right bytes',
      () =>
        withHeldReads(2, 8, async (pool, reads) => {
          pool.terminateWorker(0);
          await waitFor('the reads of the ended worker sent again', () => pool.stats.reissued === 4, {
            timeoutMs: SLOW,
          });
          expect(pool.stats).toMatchObject({ crashed: 1, inFlight: 8 });
          for (let d = 0; d < 3; d++) cluster.resumeDatanode(d);
          const want = expected();
          for (const r of await reads) {
            expect(r).not.toBeInstanceOf(Error);
            const { position, data } = r as { position: number; data: Buffer };
            expect(data.equals(want.subarray(position, position + data.length))).toBe(true);
          }
          expect(pool.stats).toMatchObject({ crashed: 1, reissued: 4, inFlight: 0 });
        }),
      SLOW,
    );

    it(
      'a read that loses a second worker fails with a retriable ReadWorkerError; the next read is served',
      () =>
        withHeldReads(1, 4, async (pool, reads, stream) => {
          pool.terminateWorker(0);
          await waitFor(
            'the reads sent to a fresh worker',
            () => pool.stats.reissued === 4 && pool.stats.running === 1,
            { timeoutMs: SLOW },
          );
          pool.terminateWorker(0);
          for (const r of await reads) {
            expect(r).toBeInstanceOf(ReadWorkerError);
            expect(r).toMatchObject({
              code: 'ERR_OZONE_READ_WORKER',
              retriable: true,
              exitCode: expect.any(Number),
            });
          }
          for (let d = 0; d < 3; d++) cluster.resumeDatanode(d);
          expect((await stream.readFully(5, 100)).equals(expected().subarray(5, 105))).toBe(true);
          expect(pool.stats).toMatchObject({ crashed: 2, reissued: 4, started: 3 });
        }),
      SLOW,
    );
  });

  it(
    'close(): reads on the workers fail ERR_OZONE_CLOSED, the workers end, later reads fail the same',
    async () => {
      const client = createOzoneClient({ omAddress: cluster.omAddress, config: { readWorkerThreads: 2 } });
      const stream = await client.openKey(VOLUME, BUCKET, 'small');
      try {
        expect(
          (await stream.readFully(0, 10)).equals(
            contractKeyBytes(KEYS.small.size, KEYS.small.seed).subarray(0, 10),
          ),
        ).toBe(true);
        for (let d = 0; d < 3; d++) cluster.pauseDatanode(d);
        const pending = stream.readFully(MiB, 10).catch((e: unknown) => e);
        await waitFor('a read on a worker', () => client.readWorkerStats.inFlight === 1, { timeoutMs: SLOW });
        client.close();
        expect(await pending).toBeInstanceOf(OzoneClosedError);
        await waitFor('every worker ended', () => client.readWorkerStats.running === 0, { timeoutMs: SLOW });
        expect(client.readWorkerStats).toMatchObject({ started: 2, crashed: 0 });
        await expect(stream.readFully(0, 10)).rejects.toBeInstanceOf(OzoneClosedError);
      } finally {
        for (let d = 0; d < 3; d++) cluster.resumeDatanode(d);
        client.close();
      }
    },
    SLOW,
  );

  it(
    'a process that never closes its client exits once its reads are done',
    async () => {
      const script = `
      import { createOzoneClient } from '@fastpath/ozone-fs-client';
      import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing';
      const [omAddress, volume, bucket, key, size, seed] = process.argv.slice(-6);
      const client = createOzoneClient({ omAddress, userName: 'reader', config: { readWorkerThreads: 2 } });
      const stream = await client.openKey(volume, bucket, key);
      const data = Buffer.concat(await Promise.all(Array.from({ length: 8 }, (_, i) => stream.readFully(i * (Number(size) / 8), Number(size) / 8))));
      process.stdout.write(JSON.stringify({ same: data.equals(contractKeyBytes(Number(size), Number(seed))), workers: client.readWorkerStats.running }));
    `;
      const { size, seed } = KEYS.small;
      const args = [cluster.omAddress, VOLUME, BUCKET, 'small', String(size), String(seed)];
      const out = await runScriptUntilExit(script, args, SLOW - 10_000);
      // Every byte read on two workers that were still running when its work was done.
      expect(JSON.parse(out)).toEqual({ same: true, workers: 2 });
    },
    SLOW,
  );
});
