// The file system's input stream against the embedded cluster, where only the embedded cluster
// can show it: concurrent positional reads held in flight together at paused datanodes, and the
// retry bound with every replica answering a retriable datanode Result. Positional reads,
// widening, the window cache, failover and setVerifyChecksum run in the shared file-system read
// suite (embedded-contract.integration.test.ts here, and against Ozone's MiniOzoneCluster in
// tools/ozone).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  newFileSystemInstance,
  type DatanodeTransport,
  type OzoneFileSystem,
} from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { DATANODE_TRANSPORTS } from './support/datanode-transports.js';

const KiB = 1024;
const MiB = 1024 * KiB;
let cluster: MiniOzoneCluster;
let fs: OzoneFileSystem;
let uri: string;
const readers = new Map<DatanodeTransport, OzoneFileSystem>();

const readChunks = (): number => cluster.counters().reduce((n, c) => n + (c.byCommand.ReadChunk ?? 0), 0);

async function write(path: string, data: Buffer, layout: Record<string, number>): Promise<void> {
  const out = await fs.create(path, layout);
  await out.write(data);
  await out.close();
}

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3 });
  uri = `ofs://${cluster.omAddress}`;
  for (const datanodeTransport of DATANODE_TRANSPORTS)
    readers.set(
      datanodeTransport,
      newFileSystemInstance(uri, {
        userName: 'reader',
        // 16 streams per channel: a pooled stream carries its requests one after another, so 16
        // reads reach the datanode together only on 16 streams.
        config: {
          readTimeoutMs: 5000,
          readMaxRetries: 1,
          readRetryIntervalMs: 10,
          datanodeTransport,
          datanodeStreamsPerChannel: 16,
        },
      }),
    );
  fs = readers.get('stream-pool') as OzoneFileSystem;
  await write('/vol/bkt/bpc16k', contractKeyBytes(5 * MiB, 7), {
    bytesPerChecksum: 16 * KiB,
    chunkSizeBytes: 4 * MiB,
  });
});
beforeEach(() => {
  cluster.clearFaults();
  fs.setVerifyChecksum(true);
});
afterAll(async () => {
  for (const r of readers.values()) r.close();
  await cluster?.close();
});

describe.each(DATANODE_TRANSPORTS)('over %s', (transport) => {
  beforeAll(() => {
    fs = readers.get(transport) as OzoneFileSystem;
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

  describe('retries', () => {
    it('are bounded by ozone.client.read.max.retries when every replica answers a retriable Result', async () => {
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
});
