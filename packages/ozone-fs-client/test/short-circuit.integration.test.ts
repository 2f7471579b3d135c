// Short-circuit reads end to end against the embedded cluster serving its datanodes' domain
// sockets: GetBlock over the Unix socket, the block file's descriptor passed with SCM_RIGHTS,
// local reads with the same widening and verification as ReadChunk, fallback to gRPC on every
// kind of failure, and the per-datanode disable interval. The datanodes' counters show which
// path each read took.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { ManualClock } from '@fastpath/core';
import {
  createOzoneClient,
  newFileSystemInstance,
  type DatanodeTransport,
  type OzoneFileSystem,
} from '@fastpath/ozone-fs-client';
import {
  startMiniOzoneCluster,
  type MiniOzoneCluster,
  type ShortCircuitFault,
} from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { DATANODE_TRANSPORTS } from './support/datanode-transports.js';

const KiB = 1024;
const MiB = 1024 * KiB;
let dir: string;
let cluster: MiniOzoneCluster;
let socketTemplate: string;
let uri: string;
let fs: OzoneFileSystem;
/** How this block of tests reads over gRPC (fallbacks, and short-circuit off). */
let transport: DatanodeTransport = 'stream-pool';

const sum = (f: (c: ReturnType<MiniOzoneCluster['counters']>[number]) => number): number =>
  cluster.counters().reduce((n, c) => n + f(c), 0);
const readChunks = (): number => sum((c) => c.byCommand.ReadChunk ?? 0);
const grpcGetBlocks = (): number => sum((c) => c.byCommand.GetBlock ?? 0);
const scRequests = (): number => sum((c) => c.shortCircuitRequests);
const fdsPassed = (): number => sum((c) => c.shortCircuitFdsPassed);

function scProperties(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'ozone.client.read.short-circuit': 'true',
    'ozone.domain.socket.path': socketTemplate,
    'ozone.client.datanode.transport': transport,
    ...extra,
  };
}

function scFileSystem(extra: Record<string, string> = {}): OzoneFileSystem {
  return newFileSystemInstance(uri, {
    userName: 'reader',
    properties: scProperties(extra),
    config: { readTimeoutMs: 5000, readMaxRetries: 1, readRetryIntervalMs: 10 },
  });
}

async function write(path: string, data: Buffer, layout: Record<string, number | string>): Promise<void> {
  const out = await fs.create(path, layout);
  await out.write(data);
  await out.close();
}

beforeAll(async () => {
  // Short: a Unix socket path has at most 107 bytes.
  dir = mkdtempSync(join(tmpdir(), 'fp-sc-'));
  socketTemplate = join(dir, 'dn._PORT.sock');
  cluster = await startMiniOzoneCluster({ datanodes: 3, domainSocketPath: socketTemplate });
  uri = `ofs://${cluster.omAddress}`;
  fs = scFileSystem();
  await write('/vol/bkt/two-blocks', contractKeyBytes(3 * MiB, 3), {
    bytesPerChecksum: 16 * KiB,
    chunkSizeBytes: MiB,
    blockSizeBytes: 2 * MiB,
  });
  await write('/vol/bkt/bpc1m', contractKeyBytes(5 * MiB, 7), {
    bytesPerChecksum: MiB,
    chunkSizeBytes: 4 * MiB,
  });
  await write('/vol/bkt/bpc16k', contractKeyBytes(5 * MiB, 7), {
    bytesPerChecksum: 16 * KiB,
    chunkSizeBytes: 4 * MiB,
  });
  await write('/vol/bkt/unit', contractKeyBytes(200 * KiB, 7), {
    bytesPerChecksum: 20 * KiB,
    chunkSizeBytes: 100 * KiB,
  });
  // One replica: once short-circuit is off for its datanode, nothing else can serve it locally.
  await write('/vol/bkt/one', contractKeyBytes(256 * KiB, 5), { replication: 'ONE' });
  await write('/vol/bkt/big', contractKeyBytes(8 * MiB, 9), { bytesPerChecksum: 16 * KiB });
});
beforeEach(() => {
  cluster.clearFaults();
  cluster.resetCounters();
});
afterAll(async () => {
  fs?.close();
  await cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(DATANODE_TRANSPORTS)('over %s', (t) => {
  beforeAll(() => {
    transport = t;
    fs.close();
    fs = scFileSystem();
  });

  describe('short-circuit reads', () => {
    it('each datanode serves its own domain socket, named by its port', () => {
      for (const d of cluster.datanodes) expect(d.domainSocketPath).toBe(join(dir, `dn.${d.port}.sock`));
    });

    it('read a key of two blocks from the passed block files: right bytes, no ReadChunk, one GetBlock per block over the socket', async () => {
      const stream = await fs.open('/vol/bkt/two-blocks');
      const buf = Buffer.alloc(stream.length);
      await stream.readFully(0, buf);
      expect(buf.equals(contractKeyBytes(3 * MiB, 3))).toBe(true);
      expect(scRequests()).toBe(2);
      expect(fdsPassed()).toBe(2);
      expect(readChunks()).toBe(0);
      expect(grpcGetBlocks()).toBe(0);
      expect(stream.stats).toMatchObject({
        shortCircuitGetBlocks: 2,
        readChunkCalls: 0,
        shortCircuitFallbacks: 0,
      });
      expect(stream.stats.shortCircuitReads).toBeGreaterThanOrEqual(3); // one per chunk at least
      expect(stream.stats.bytesReadShortCircuit).toBe(3 * MiB);
      stream.close();
    });

    it('widens each read to whole checksum windows exactly as over gRPC, and reads exactly the range with verification off', async () => {
      const fetched = async (
        path: string,
        position: number,
        length: number,
        verify: boolean,
      ): Promise<number> => {
        fs.setVerifyChecksum(verify);
        const stream = await fs.open(path);
        const buf = Buffer.alloc(length);
        await stream.readFully(position, buf);
        expect(buf.equals(contractKeyBytes(stream.length, 7).subarray(position, position + length))).toBe(
          true,
        );
        const { bytesReadShortCircuit, bytesFetched, bytesVerified, readChunkCalls } = stream.stats;
        expect(bytesFetched).toBe(bytesReadShortCircuit);
        expect(bytesVerified).toBe(verify ? bytesFetched : 0);
        expect(readChunkCalls).toBe(0);
        stream.close();
        return bytesReadShortCircuit;
      };
      // Ozone's unit vector ×1024: chunk 100 KiB, bpc 20 KiB, bytes 0..50 KiB-1 → 0..60 KiB.
      expect(await fetched('/vol/bkt/unit', 0, 50 * KiB, true)).toBe(60 * KiB);
      expect(await fetched('/vol/bkt/bpc1m', 100_000, 64 * KiB, true)).toBe(MiB);
      expect(await fetched('/vol/bkt/bpc1m', MiB - 1000, 64 * KiB, true)).toBe(2 * MiB);
      expect(await fetched('/vol/bkt/bpc16k', 5 * 16 * KiB, 64 * KiB, true)).toBe(64 * KiB);
      expect(await fetched('/vol/bkt/bpc16k', 5 * 16 * KiB + 1, 64 * KiB, true)).toBe(80 * KiB);
      expect(await fetched('/vol/bkt/bpc1m', 100_000, 64 * KiB, false)).toBe(64 * KiB);
      expect(await fetched('/vol/bkt/bpc16k', 5 * 16 * KiB + 1, 64 * KiB, false)).toBe(64 * KiB);
      expect(readChunks()).toBe(0);
    });

    it('16 concurrent positional reads on one stream, all from the block file', async () => {
      const stream = await fs.open('/vol/bkt/big');
      const expected = contractKeyBytes(8 * MiB, 9);
      let seed = 12345;
      const offsets = Array.from({ length: 16 }, () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % (8 * MiB - 64 * KiB);
      });
      const bufs = offsets.map(() => Buffer.alloc(64 * KiB));
      await Promise.all(offsets.map((o, i) => stream.readFully(o, bufs[i] as Buffer)));
      offsets.forEach((o, i) =>
        expect((bufs[i] as Buffer).equals(expected.subarray(o, o + 64 * KiB))).toBe(true),
      );
      expect(stream.stats.shortCircuitGetBlocks).toBe(1); // the 16 shared one GetBlock
      expect(stream.stats.shortCircuitReads).toBe(16);
      expect(readChunks()).toBe(0);
      stream.close();
    });

    describe('a corrupt block file', () => {
      const CORRUPT_AT = 300_000;
      let corruptUuid: string;
      beforeAll(async () => {
        await write('/vol/bkt/corrupt', contractKeyBytes(MiB, 11), { bytesPerChecksum: 16 * KiB });
        corruptUuid = await cluster.corruptKeyReplica('vol', 'bkt', 'corrupt', CORRUPT_AT, { replica: 0 });
      });

      it('verification on: detected in the local read, reported, and read from another replica over gRPC', async () => {
        fs.setVerifyChecksum(true);
        const stream = await fs.open('/vol/bkt/corrupt');
        const buf = Buffer.alloc(64 * KiB);
        await stream.readFully(CORRUPT_AT - 1000, buf);
        expect(
          buf.equals(contractKeyBytes(MiB, 11).subarray(CORRUPT_AT - 1000, CORRUPT_AT - 1000 + 64 * KiB)),
        ).toBe(true);
        expect(cluster.datanode(corruptUuid).counters.shortCircuitFdsPassed).toBe(1);
        expect(stream.badReplicas.map((r) => r.datanodeUuid)).toEqual([corruptUuid]);
        expect(stream.badReplicas[0]?.location.offsetInChunk).toBe(
          Math.floor(CORRUPT_AT / (16 * KiB)) * 16 * KiB,
        );
        // The bad replica is not asked again over gRPC; another one serves the range.
        expect(cluster.datanode(corruptUuid).counters.byCommand.ReadChunk ?? 0).toBe(0);
        expect(readChunks()).toBe(1);
        // Read locally once (and found bad), then from another replica: not a short-circuit failure.
        expect(stream.stats).toMatchObject({ shortCircuitReads: 1, shortCircuitFallbacks: 0, failovers: 1 });
        stream.close();
      });

      it('verification off: the stored bytes, read locally, nothing checked', async () => {
        fs.setVerifyChecksum(false);
        const stream = await fs.open('/vol/bkt/corrupt');
        const buf = Buffer.alloc(16);
        await stream.readFully(CORRUPT_AT - 8, buf);
        const expected = Buffer.from(contractKeyBytes(MiB, 11).subarray(CORRUPT_AT - 8, CORRUPT_AT + 8));
        expected[8] = (expected[8] as number) ^ 0xff; // what corruptKeyReplica did on disk
        expect(buf.equals(expected)).toBe(true);
        expect(stream.stats).toMatchObject({ shortCircuitReads: 1, bytesVerified: 0, readChunkCalls: 0 });
        expect(stream.badReplicas).toEqual([]);
        stream.close();
      });
    });
  });

  describe('fallback to gRPC and the disable interval', () => {
    const expectedOne = contractKeyBytes(256 * KiB, 5);

    async function readOne(target: OzoneFileSystem) {
      const stream = await target.open('/vol/bkt/one');
      const buf = Buffer.alloc(stream.length);
      await stream.readFully(0, buf);
      expect(buf.equals(expectedOne)).toBe(true);
      const stats = { ...stream.stats };
      stream.close();
      return stats;
    }

    it('no socket at the configured path: read over gRPC, and short-circuit off for that datanode afterwards', async () => {
      const other = scFileSystem({ 'ozone.domain.socket.path': join(dir, 'nobody._PORT.sock') });
      try {
        expect(await readOne(other)).toMatchObject({ shortCircuitFallbacks: 1, shortCircuitGetBlocks: 0 });
        expect(grpcGetBlocks()).toBe(1);
        expect(readChunks()).toBeGreaterThan(0);
        // Disabled: the next stream goes straight to gRPC.
        expect(await readOne(other)).toMatchObject({ shortCircuitFallbacks: 0, shortCircuitGetBlocks: 0 });
        expect(scRequests()).toBe(0);
      } finally {
        other.close();
      }
    });

    it('a file that is not a socket (connection refused): read over gRPC', async () => {
      const plain = join(dir, 'plain_PORT');
      const port = cluster.datanodes[0]?.port ?? 0;
      writeFileSync(plain.replace('_PORT', String(port)), '');
      const other = scFileSystem({ 'ozone.domain.socket.path': plain });
      try {
        expect(await readOne(other)).toMatchObject({ shortCircuitFallbacks: 1, shortCircuitGetBlocks: 0 });
        expect(await readOne(other)).toMatchObject({ shortCircuitFallbacks: 0 });
      } finally {
        other.close();
      }
    });

    const faults: Array<[ShortCircuitFault['response'], string]> = [
      ['deny', 'access not granted'],
      ['garbage', 'an answer that is not a frame'],
      ['hang-up', 'the connection closed without an answer'],
      ['wrong-call-id', 'the answer to another call'],
      ['no-fd', 'the magic byte without a descriptor'],
      ['unusable-fd', 'a descriptor that cannot be read (write-only)'],
    ];
    it.each(faults)('%s (%s): read over gRPC, then short-circuit off for that datanode', async (response) => {
      const first = cluster.datanodes[0];
      if (!first) throw new Error('no datanode');
      first.injectShortCircuitFault({ response });
      const other = scFileSystem();
      try {
        const stats = await readOne(other);
        expect(stats.shortCircuitFallbacks).toBe(1);
        expect(stats.shortCircuitReads).toBe(0);
        expect(first.counters.shortCircuitRequests).toBe(1);
        expect(first.counters.byCommand.ReadChunk ?? 0).toBeGreaterThan(0);
        expect(await readOne(other)).toMatchObject({ shortCircuitFallbacks: 0, shortCircuitGetBlocks: 0 });
        expect(first.counters.shortCircuitRequests).toBe(1);
      } finally {
        other.close();
      }
    });

    it('short-circuit comes back for a datanode once ozone.client.read.short-circuit.disable.interval has passed', async () => {
      const first = cluster.datanodes[0];
      if (!first) throw new Error('no datanode');
      first.injectShortCircuitFault({ response: 'hang-up', times: 1 });
      const clock = new ManualClock();
      const client = createOzoneClient({
        omAddress: cluster.omAddress,
        userName: 'reader',
        properties: scProperties({ 'ozone.client.read.short-circuit.disable.interval': '60' }),
        clock,
      });
      const read = async () => {
        const stream = await client.openKey('vol', 'bkt', 'one');
        expect((await stream.readFully(0, stream.lengthBytes)).equals(expectedOne)).toBe(true);
        const stats = { ...stream.stats };
        stream.close();
        return stats;
      };
      try {
        expect(await read()).toMatchObject({ shortCircuitFallbacks: 1 });
        expect(first.counters.shortCircuitRequests).toBe(1);
        clock.advance(59_999);
        expect(await read()).toMatchObject({ shortCircuitGetBlocks: 0, shortCircuitFallbacks: 0 });
        expect(first.counters.shortCircuitRequests).toBe(1);
        clock.advance(1);
        expect(await read()).toMatchObject({ shortCircuitGetBlocks: 1, shortCircuitFallbacks: 0 });
        expect(first.counters.shortCircuitRequests).toBe(2);
        expect(first.counters.shortCircuitFdsPassed).toBe(1);
      } finally {
        client.close();
      }
    });

    it('short-circuit off (the default): every read over gRPC, the socket never asked', async () => {
      const plain = newFileSystemInstance(uri, {
        userName: 'reader',
        properties: { 'ozone.client.datanode.transport': transport },
      });
      try {
        const stream = await plain.open('/vol/bkt/one');
        await stream.readFully(0, Buffer.alloc(1024));
        stream.close();
        expect(scRequests()).toBe(0);
        expect(grpcGetBlocks()).toBe(1);
      } finally {
        plain.close();
      }
    });
  });
});
