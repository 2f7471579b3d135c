// Reading erasure-coded keys on the embedded cluster: healthy reads through the stripe layout
// (every cell from the replica of its index), positional reads across cell, stripe and group
// edges, and degraded reads: a data replica stopped, missing from the pipeline or corrupt is
// rebuilt from parity, until more units are lost than parity covers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { systemClock } from '@fastpath/core';
import {
  createOzoneClient,
  ErasureUnrecoverableError,
  KeyInputStream,
  type OzoneClient,
} from '@fastpath/ozone-fs-client';
import {
  startMiniOzoneCluster,
  writeEcKey,
  type MiniOzoneCluster,
  type WrittenBlockGroup,
} from '@fastpath/ozone-fs-client/testing';
import {
  contractKeyBytes,
  describeEcReads,
  edgeRanges,
  MINI_CLUSTER_CAPABILITIES,
  miniClusterAdapter,
} from '@fastpath/ozone-fs-client/testing/contract';
import { parseEcReplicationConfig, type EcReplicationConfig } from '../src/internal/ec/ec-stripe-layout.js';
import { createReadContext } from '../src/internal/read-context.js';

const MiB = 1024 * 1024;
const RS_3_2 = parseEcReplicationConfig('rs-3-2-1024k');
// Small cells give many stripes and block groups in small keys; the OM's allowed configs are
// widened for them, as a test cluster may be.
const RS_3_2_SMALL = parseEcReplicationConfig('rs-3-2-4k');
const RS_6_3_SMALL = parseEcReplicationConfig('rs-6-3-4k');
const CELL = 4096;

let cluster: MiniOzoneCluster;
let client: OzoneClient;
const stopped = new Set<string>();

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 9 });
  cluster.om.replicationAllowedConfigs = /^EC\/(3-2-1024k|3-2-4k|6-3-4k)$/;
  // A stopped datanode fails its replica at once (no retry sweeps), so that degraded reads are quick.
  client = createOzoneClient({ omAddress: cluster.omAddress, config: { readMaxRetries: 0 } });
  await client.createVolume('vol');
  await client.createBucket('vol', 'ecb');
});

afterEach(async () => {
  for (const uuid of stopped) await cluster.restartDatanode(uuid);
  stopped.clear();
});

afterAll(async () => {
  client?.close();
  await cluster?.close();
});

async function writeKey(
  key: string,
  size: number,
  config: EcReplicationConfig,
  blockGroupBytes?: number,
): Promise<{ data: Buffer; groups: WrittenBlockGroup[] }> {
  const data = contractKeyBytes(size, size + config.data);
  const groups = await writeEcKey(cluster, {
    volume: 'vol',
    bucket: 'ecb',
    key,
    data,
    config,
    ...(blockGroupBytes ? { blockGroupBytes } : {}),
  });
  return { data, groups };
}

async function stop(uuid: string): Promise<void> {
  stopped.add(uuid);
  await cluster.stopDatanode(uuid);
}

async function expectRangesRead(key: string, data: Buffer, cell: number, seed: number): Promise<void> {
  const stream = await client.openKey('vol', 'ecb', key);
  try {
    for (const [position, length] of edgeRanges(data.length, 60, cell, seed)) {
      const got = await stream.readFully(position, length);
      if (!got.equals(data.subarray(position, position + length)))
        throw new Error(`bytes differ at ${position}+${length}`);
    }
  } finally {
    stream.close();
  }
}

describe('healthy EC reads', () => {
  it.each([
    ['empty', 0],
    ['one byte', 1],
    ['one cell minus one', MiB - 1],
    ['one cell', MiB],
    ['one cell plus one', MiB + 1],
    ['one stripe minus one', 3 * MiB - 1],
    ['one stripe', 3 * MiB],
    ['one stripe plus one', 3 * MiB + 1],
    ['two stripes and a partial one', 7_000_000],
  ])('rs-3-2-1024k, %s: the whole key, verified and not, from the data replicas only', async (name, size) => {
    const key = `rs32-${size}`;
    const { data } = await writeKey(key, size, RS_3_2);
    for (const verifyChecksum of [true, false]) {
      const stream = await client.openKey('vol', 'ecb', key, { verifyChecksum });
      try {
        expect(stream.lengthBytes).toBe(size);
        const got = await stream.readFully(0, size);
        expect(got.equals(data)).toBe(true);
        expect(stream.stats.ecStripesRebuilt).toBe(0);
        expect(stream.stats.bytesVerified).toBe(verifyChecksum ? size : 0);
        // One GetBlock per data replica the key has bytes on; parity is never read.
        expect(stream.stats.getBlockCalls).toBe(Math.min(3, Math.ceil(size / MiB)));
        expect(stream.stats.failovers).toBe(0);
      } finally {
        stream.close();
      }
    }
  });

  it('rs-6-3 with 4 KiB cells over several block groups: positional reads across cell, stripe and group edges', async () => {
    const groupBytes = 6 * CELL * 3;
    const size = groupBytes * 3 + 6 * CELL + 1000;
    const { data, groups } = await writeKey('rs63-groups', size, RS_6_3_SMALL, groupBytes);
    expect(groups).toHaveLength(4);
    expect((await client.readKey('vol', 'ecb', 'rs63-groups')).equals(data)).toBe(true);
    await expectRangesRead('rs63-groups', data, CELL, 63);
  });

  it.each([
    ['on read worker threads', { readWorkerThreads: 2 }],
    ['with streaming ReadBlock', { streamReadBlockEnabled: true }],
  ] as const)('%s, healthy and with a data replica down', async (name, config) => {
    const key = `other-paths-${'readWorkerThreads' in config ? 'workers' : 'readblock'}`;
    const { data, groups } = await writeKey(key, 3 * CELL * 5 + 999, RS_3_2_SMALL, 3 * CELL * 2);
    const other = createOzoneClient({
      omAddress: cluster.omAddress,
      config: { readMaxRetries: 0, ...config },
    });
    try {
      const healthy = await other.openKey('vol', 'ecb', key);
      try {
        expect((await healthy.readFully(0, data.length)).equals(data)).toBe(true);
        expect(healthy.stats.ecStripesRebuilt).toBe(0);
        if ('streamReadBlockEnabled' in config) expect(healthy.stats.readBlockCalls).toBeGreaterThan(0);
      } finally {
        healthy.close();
      }
      await stop(groups[0]!.datanodes[0]!);
      const degraded = await other.openKey('vol', 'ecb', key);
      try {
        expect((await degraded.readFully(0, data.length)).equals(data)).toBe(true);
        expect(degraded.stats.ecStripesRebuilt).toBeGreaterThan(0);
      } finally {
        degraded.close();
      }
    } finally {
      other.close();
    }
  });

  it("a file's status reports its replication as Ozone's file system does: data + parity", async () => {
    await writeKey('status-rs32', 5, RS_3_2);
    await writeKey('status-rs63', 5, RS_6_3_SMALL);
    expect((await client.getFileStatus('vol', 'ecb', 'status-rs32')).replication).toBe(5);
    expect((await client.getFileStatus('vol', 'ecb', 'status-rs63')).replication).toBe(9);
  });

  it('a parity replica down does not touch a healthy read', async () => {
    const { data, groups } = await writeKey('parity-down', 3 * CELL * 4 + 77, RS_3_2_SMALL);
    await stop(groups[0]!.datanodes[3]!);
    const stream = await client.openKey('vol', 'ecb', 'parity-down');
    try {
      expect((await stream.readFully(0, data.length)).equals(data)).toBe(true);
      expect(stream.stats.ecStripesRebuilt).toBe(0);
      expect(stream.stats.failovers).toBe(0);
    } finally {
      stream.close();
    }
  });
});

describe('degraded EC reads', () => {
  const SIZE = 3 * CELL * 6 + 2 * CELL + 123;

  it('one and then two data replicas stopped: every byte rebuilt from parity; a third: ERR_OZONE_EC_UNRECOVERABLE', async () => {
    const { data, groups } = await writeKey('degraded', SIZE, RS_3_2_SMALL, 3 * CELL * 4);
    const group = groups[0]!;
    await stop(group.datanodes[0]!);
    const one = await client.openKey('vol', 'ecb', 'degraded');
    try {
      expect((await one.readFully(0, SIZE)).equals(data)).toBe(true);
      // Replica 1 holds a cell of each of the group's 4 stripes; the second group is elsewhere or not.
      expect(one.stats.ecStripesRebuilt).toBeGreaterThanOrEqual(4);
      expect(one.stats.ecBytesRebuilt).toBeGreaterThanOrEqual(4 * CELL);
    } finally {
      one.close();
    }
    await expectRangesRead('degraded', data, CELL, 1);

    await stop(group.datanodes[2]!);
    expect((await client.readKey('vol', 'ecb', 'degraded')).equals(data)).toBe(true);
    await expectRangesRead('degraded', data, CELL, 2);

    await stop(group.datanodes[1]!);
    const err = await client.readKey('vol', 'ecb', 'degraded').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ErasureUnrecoverableError);
    expect(err).toMatchObject({
      code: 'ERR_OZONE_EC_UNRECOVERABLE',
      neededUnits: 3,
      availableUnits: 2,
      retriable: true,
    });
    expect((err as Error).message).toContain(`block group ${group.containerId}/${group.localId}`);
  });

  it('a read that loses its replica halfway rebuilds the rest and keeps the replica lost', async () => {
    const { data, groups } = await writeKey('lost-midway', SIZE, RS_3_2_SMALL);
    const stream = await client.openKey('vol', 'ecb', 'lost-midway');
    try {
      const firstStripe = 3 * CELL;
      expect((await stream.readFully(0, firstStripe)).equals(data.subarray(0, firstStripe))).toBe(true);
      expect(stream.stats.ecStripesRebuilt).toBe(0);
      await stop(groups[0]!.datanodes[1]!);
      expect(
        (await stream.readFully(firstStripe, SIZE - firstStripe)).equals(data.subarray(firstStripe)),
      ).toBe(true);
      const rebuilt = stream.stats.ecStripesRebuilt;
      expect(rebuilt).toBeGreaterThan(0);
      // Back again, the replica stays lost for this stream (as Ozone's proxy keeps its reconstructing reader).
      await cluster.restartDatanode(groups[0]!.datanodes[1]!);
      stopped.delete(groups[0]!.datanodes[1]!);
      const calls = stream.stats.getBlockCalls;
      expect((await stream.readFully(CELL, CELL)).equals(data.subarray(CELL, 2 * CELL))).toBe(true);
      expect(stream.stats.ecStripesRebuilt).toBe(rebuilt + 1);
      expect(stream.stats.getBlockCalls).toBe(calls);
    } finally {
      stream.close();
    }
  });

  it('a data replica the pipeline does not list is rebuilt without asking its datanode', async () => {
    const { data, groups } = await writeKey('missing-index', SIZE, RS_3_2_SMALL);
    const details = await client.getKeyInfo('vol', 'ecb', 'missing-index');
    const ctx = createReadContext(
      { config: client.config, tls: undefined, maxReceiveBytes: 32 * MiB },
      systemClock,
    );
    const blocks = details.blocks.map((b) => {
      const keep = b.ec!.replicaIndexes.map((index) => index !== 2);
      return {
        ...b,
        datanodes: b.datanodes.filter((_, i) => keep[i]),
        ec: { ...b.ec!, replicaIndexes: b.ec!.replicaIndexes.filter((_, i) => keep[i]) },
      };
    });
    cluster.resetCounters();
    const stream = new KeyInputStream(ctx, blocks, details.sizeBytes, true);
    try {
      expect((await stream.readFully(0, SIZE)).equals(data)).toBe(true);
      expect(stream.stats.ecStripesRebuilt).toBeGreaterThan(0);
      expect(stream.stats.failovers).toBe(0);
      // Nothing asked of replica 2's datanode.
      expect(cluster.datanode(groups[0]!.datanodes[1]!).counters.requests).toBe(0);
    } finally {
      stream.close();
      ctx.datanodes.close();
    }
  });

  it('a corrupt data replica: found by its checksums and rebuilt; unverified reads return what is stored', async () => {
    const { data, groups } = await writeKey('corrupt', SIZE, RS_3_2_SMALL);
    const replica2 = groups[0]!.datanodes[1]!;
    // Byte 5 of replica 2's first cell is key byte CELL + 5.
    await cluster.datanode(replica2).corruptBlock(groups[0]!.containerId, groups[0]!.localId, 5);
    const verified = await client.openKey('vol', 'ecb', 'corrupt', { verifyChecksum: true });
    try {
      expect((await verified.readFully(0, SIZE)).equals(data)).toBe(true);
      expect(verified.badReplicas.map((r) => r.datanodeUuid)).toContain(replica2);
      expect(verified.stats.ecStripesRebuilt).toBeGreaterThan(0);
    } finally {
      verified.close();
    }
    const unverified = await client.readKey('vol', 'ecb', 'corrupt', { verifyChecksum: false });
    expect(unverified[CELL + 5]).not.toBe(data[CELL + 5]);
    expect(Buffer.concat([unverified.subarray(0, CELL + 5), unverified.subarray(CELL + 6)])).toEqual(
      Buffer.concat([data.subarray(0, CELL + 5), data.subarray(CELL + 6)]),
    );
  });
});

describe('the EC read contract', () => {
  describeEcReads(() => miniClusterAdapter(cluster), {
    ...MINI_CLUSTER_CAPABILITIES,
    ec: { replication: 'rs-3-2-1024k', blockGroupBytes: 2 * 3 * MiB },
  });
});
