// Bad answers from the other side: each one ends in a typed error or a failover to the next
// replica with the right bytes, never in a hang, a crash or wrong bytes returned as success.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient, type DatanodeTransport, type OzoneClient } from '@fastpath/ozone-fs-client';
import { waitFor } from '@fastpath/test-support';
import { DATANODE_TRANSPORTS } from './support/datanode-transports.js';
import {
  startMiniOzoneCluster,
  type DatanodeFault,
  type MiniOzoneCluster,
} from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';

const SIZE = 100_000;
let cluster: MiniOzoneCluster;
let client: OzoneClient;
let clients: Record<DatanodeTransport, OzoneClient>;

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3 });
  // A short deadline so that a datanode that never answers costs little; no retry sweeps.
  const make = (datanodeTransport: DatanodeTransport): OzoneClient =>
    createOzoneClient({
      omAddress: cluster.omAddress,
      config: { readTimeoutMs: 1500, readMaxRetries: 0, readRetryIntervalMs: 0, datanodeTransport },
    });
  clients = {
    'stream-pool': make('stream-pool'),
    'call-per-request': make('call-per-request'),
    'http2-stream-pool': make('http2-stream-pool'),
    'socket-stream-pool': make('socket-stream-pool'),
  };
  client = clients['stream-pool'];
  await client.createVolume('vol1');
  await client.createBucket('vol1', 'bucket1');
  await client.writeKey('vol1', 'bucket1', 'k', contractKeyBytes(SIZE, 3));
});
afterEach(() => cluster.clearFaults());
afterAll(async () => {
  for (const c of Object.values(clients ?? {})) c.close();
  await cluster?.close();
});

async function firstReplica(): Promise<string> {
  return (await client.getKeyInfo('vol1', 'bucket1', 'k')).blocks[0]?.datanodes[0]?.uuid as string;
}

async function readAll(): Promise<{ data: Buffer; failovers: number }> {
  const stream = await client.openKey('vol1', 'bucket1', 'k');
  const data = await stream.readFully(0, SIZE);
  return { data, failovers: stream.stats.failovers };
}

const faults: Array<[string, DatanodeFault, string]> = [
  ['short data', { command: 'ReadChunk', response: 'short-data' }, 'ERR_OZONE_SHORT_READ'],
  ['an unknown Result', { command: 'ReadChunk', response: 'unknown-result' }, 'ERR_OZONE_DATANODE_RESULT'],
  ['a failure Result', { command: 'ReadChunk', result: 'CONTAINER_NOT_FOUND' }, 'ERR_OZONE_DATANODE_RESULT'],
  ['garbage instead of a protobuf', { command: 'ReadChunk', response: 'garbage' }, 'ERR_OZONE_PROTOCOL'],
  ['a truncated protobuf', { command: 'ReadChunk', response: 'truncated' }, 'ERR_OZONE_PROTOCOL'],
  ['a stream that ends without an answer', { command: 'ReadChunk', response: 'end' }, 'ERR_OZONE_PROTOCOL'],
  ['a gRPC error status', { command: 'ReadChunk', response: 'grpc-error' }, 'ERR_OZONE_RPC_FAILED'],
  ['a stream that never answers', { command: 'ReadChunk', response: 'never' }, 'ERR_OZONE_DEADLINE_EXCEEDED'],
  ['a garbage GetBlock answer', { command: 'GetBlock', response: 'garbage' }, 'ERR_OZONE_PROTOCOL'],
];

// Every datanode fault, in both transports: a stream per request and long-lived pooled streams.
describe.each(DATANODE_TRANSPORTS)('over %s', (transport) => {
  beforeAll(async () => {
    client = clients[transport];
    // The transport before ends with every datanode killed and restarted: start once they serve.
    await waitFor('the datanodes to serve reads again', async () => (await readAll()).data.length === SIZE, {
      timeoutMs: 30_000,
    });
  });

  describe.each(faults)('a datanode answering %s', (_name, fault, code) => {
    it('on one replica: fails over and returns the right bytes', async () => {
      cluster.injectFault(await firstReplica(), fault);
      const { data, failovers } = await readAll();
      expect(data.equals(contractKeyBytes(SIZE, 3))).toBe(true);
      expect(failovers).toBeGreaterThanOrEqual(1);
    });

    it(`on every replica: a typed error (${code}) from each attempt`, async () => {
      for (let i = 0; i < 3; i++) cluster.injectFault(i, fault);
      const err = await readAll().catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'ERR_OZONE_REPLICAS_EXHAUSTED' });
      const attempts = (err as { attempts: Array<{ code: string }> }).attempts;
      expect(attempts.length).toBeGreaterThanOrEqual(3);
      expect(new Set(attempts.map((a) => a.code))).toEqual(new Set([code]));
    });
  });

  describe('a wrong number of checksums', () => {
    it('is a checksum error, never data returned unchecked', async () => {
      for (let i = 0; i < 3; i++) cluster.injectFault(i, { command: 'GetBlock', response: 'drop-checksum' });
      const err = await readAll().catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'ERR_OZONE_REPLICAS_EXHAUSTED' });
      const attempts = (err as { attempts: Array<{ code: string; message: string }> }).attempts;
      expect(attempts[0]).toMatchObject({ code: 'ERR_OZONE_CHECKSUM_MISMATCH' });
      expect(attempts[0]?.message).toMatch(/windows of data but \d+ stored checksums/);
    });
  });

  describe('datanodes going away', () => {
    it('a paused datanode costs one deadline, then the next replica answers', async () => {
      const first = await firstReplica();
      cluster.pauseDatanode(first);
      try {
        const { data, failovers } = await readAll();
        expect(data.equals(contractKeyBytes(SIZE, 3))).toBe(true);
        expect(failovers).toBeGreaterThanOrEqual(1);
      } finally {
        cluster.resumeDatanode(first);
      }
    });

    it('a killed datanode is failed over, and after a restart it serves its data again', async () => {
      const first = await firstReplica();
      cluster.killDatanode(first);
      const { data } = await readAll();
      expect(data.equals(contractKeyBytes(SIZE, 3))).toBe(true);
      await cluster.restartDatanode(first);
      // The client's channel to it leaves gRPC's reconnect backoff on its own: read until the
      // restarted datanode serves a whole read itself (bounded).
      let served = false;
      for (let attempt = 0; attempt < 100 && !served; attempt++) {
        const before = cluster.datanode(first).counters.bytesRead;
        const again = await readAll();
        expect(again.data.equals(contractKeyBytes(SIZE, 3))).toBe(true);
        served = again.failovers === 0 && cluster.datanode(first).counters.bytesRead - before === SIZE;
        if (!served) await sleep(100);
      }
      expect(served).toBe(true);
    });

    it('every datanode down: a retriable typed error', async () => {
      for (const d of cluster.datanodes) d.kill();
      try {
        const err = await readAll().catch((e: unknown) => e);
        expect(err).toMatchObject({ code: 'ERR_OZONE_REPLICAS_EXHAUSTED', retriable: true });
      } finally {
        for (const d of cluster.datanodes) await cluster.restartDatanode(d.uuid);
      }
    });
  });
});

describe('the OM', () => {
  it('unreachable: ERR_OZONE_UNAVAILABLE, retriable', async () => {
    const other = await startMiniOzoneCluster({ datanodes: 1 });
    const address = other.omAddress;
    await other.close();
    const c = createOzoneClient({ omAddress: address, omTimeoutMs: 5000 });
    try {
      await expect(c.getVolume('vol1')).rejects.toMatchObject({
        code: 'ERR_OZONE_UNAVAILABLE',
        retriable: true,
      });
    } finally {
      c.close();
    }
  });

  it('a closed client refuses calls', async () => {
    const c = createOzoneClient({ omAddress: cluster.omAddress });
    c.close();
    await expect(c.getVolume('vol1')).rejects.toMatchObject({ code: 'ERR_OZONE_CLOSED' });
  });
});

describe('restarting the whole cluster on its directory', () => {
  it('keeps volumes, buckets and key data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fastpath-mini-restart-'));
    try {
      const first = await startMiniOzoneCluster({ datanodes: 3, dir });
      const c1 = createOzoneClient({ omAddress: first.omAddress });
      await c1.createVolume('vol1');
      await c1.createBucket('vol1', 'bucket1');
      await c1.writeKey('vol1', 'bucket1', 'kept', contractKeyBytes(70_000, 9));
      c1.close();
      await first.close();
      const second = await startMiniOzoneCluster({ datanodes: 3, dir });
      const c2 = createOzoneClient({ omAddress: second.omAddress });
      try {
        expect((await c2.readKey('vol1', 'bucket1', 'kept')).equals(contractKeyBytes(70_000, 9))).toBe(true);
      } finally {
        c2.close();
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
