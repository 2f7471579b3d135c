// fastpath writes erasure-coded keys to a real MiniOzoneCluster: the datanodes take its
// WriteChunks and PutBlocks on their standalone ports (checksums, replica indexes, block group
// lengths), the OM takes its CreateKey, AllocateBlock and CommitKey, and Ozone's own Java client
// reads every key back byte for byte with checksums verified, as fastpath's reader does. Keys on
// every layout edge (0 B, 1 B, a cell and a stripe each ± 1, several block groups), a key written
// EC because its bucket's default is, one whose write lost a datanode after its first stripe; and
// rs-6-3 both ways on the cluster's nine datanodes, with a data replica's datanode stopped.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import {
  SMALL_CELL_ALLOWED_REPLICATION_CONFIGS,
  startRealOzoneCluster,
  type RealOzoneCluster,
} from '@fastpath/ozone-fixture';

jest.setTimeout(600_000);

const VOLUME = 'ecvol';
const BUCKET = 'ecbkt';
const MiB = 1024 * 1024;

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('fastpath writes EC keys to a real MiniOzoneCluster', () => {
  let cluster: RealOzoneCluster;
  let client: OzoneClient;

  beforeAll(async () => {
    // rs-6-3 needs nine datanodes (rs-3-2 five, of which SCM chooses); small cells keep the keys
    // on the layout's edges small, allowed by the OM and by the client alike.
    cluster = await startRealOzoneCluster({
      datanodes: 9,
      // Nine datanodes' gRPC servers in one JVM: at the default 768 MiB their 1 MiB WriteChunks
      // fail on some datanodes (the servers reset the streams); 2 GiB holds them.
      heapMb: 2048,
      allowedReplicationConfigs: SMALL_CELL_ALLOWED_REPLICATION_CONFIGS,
      // Java's reader fails over from a stopped datanode after its retries, without 1 s waits.
      configuration: { 'ozone.client.read.retry.interval': '0' },
    });
    client = createOzoneClient({
      omAddress: cluster.omGrpcAddress,
      userName: 'writer',
      properties: { 'ozone.replication.allowed-configs': SMALL_CELL_ALLOWED_REPLICATION_CONFIGS },
    });
    await client.createVolume(VOLUME);
    await client.createBucket(VOLUME, BUCKET);
  });

  afterAll(async () => {
    client?.close();
    await cluster?.stop();
  });

  async function expectReadBack(bucket: string, key: string, data: Uint8Array): Promise<void> {
    const java = await cluster.readKeyWithJava(VOLUME, bucket, key);
    expect(java).toEqual({ bytesRead: data.length, sha256: sha256(data) });
    expect(sha256(await client.readKey(VOLUME, bucket, key))).toBe(sha256(data));
  }

  it.each([
    ['one byte', 1],
    ['a cell and a bit', MiB + 5],
    ['two stripes and a partial one', 7_000_000],
  ])('rs-3-2-1024k, %s: Java reads it back', async (_, size) => {
    const data = contractKeyBytes(size, size);
    await client.writeKey(VOLUME, BUCKET, `ec-${size}`, data, { replication: 'rs-3-2-1024k' });
    const info = await client.getKeyInfo(VOLUME, BUCKET, `ec-${size}`);
    expect(info.replicationType).toBe('EC');
    await expectReadBack(BUCKET, `ec-${size}`, data);
  });

  it('rs-3-2-64k on every layout edge (0 B, 1 B, a cell and a stripe each ± 1, three block groups of 384 KiB): Java reads each back', async () => {
    const c = 64 * 1024;
    const stripe = 3 * c;
    for (const size of [0, 1, c - 1, c, c + 1, stripe - 1, stripe, stripe + 1, 4 * stripe + c + 7]) {
      const data = contractKeyBytes(size, size + 1);
      // 128 KiB internal blocks: a group holds two stripes.
      await client.writeKey(VOLUME, BUCKET, `edge-${size}`, data, {
        replication: 'rs-3-2-64k',
        blockSizeBytes: 2 * c,
      });
      const lookup = await cluster.lookupKey(VOLUME, BUCKET, `edge-${size}`);
      expect(lookup.found && lookup.replication).toBe('rs-3-2-64k');
      expect(lookup.found && lookup.blocks.length).toBe(Math.ceil(size / (2 * stripe)));
      await expectReadBack(BUCKET, `edge-${size}`, data);
    }
  });

  it('several block groups (1 MiB internal blocks, 3 MiB groups) and CRC32C checksums', async () => {
    const data = contractKeyBytes(3 * 3 * MiB + 1234, 77);
    await client.writeKey(VOLUME, BUCKET, 'ec-groups', data, {
      replication: 'rs-3-2-1024k',
      blockSizeBytes: MiB,
      chunkSizeBytes: MiB,
      checksumType: 'CRC32C',
    });
    const lookup = await cluster.lookupKey(VOLUME, BUCKET, 'ec-groups');
    expect(lookup.found && lookup.blocks.map((b) => b.lengthBytes)).toEqual([
      3 * MiB,
      3 * MiB,
      3 * MiB,
      1234,
    ]);
    await expectReadBack(BUCKET, 'ec-groups', data);
  });

  it('a bucket whose default is EC: CreateKey names none, and the key is EC', async () => {
    await client.createBucket(VOLUME, 'ecdefault', { defaultReplication: 'rs-3-2-1024k' });
    expect((await client.getBucket(VOLUME, 'ecdefault')).defaultReplication).toBe('rs-3-2-1024k');
    const data = contractKeyBytes(4 * MiB + 3, 5);
    await client.writeKey(VOLUME, 'ecdefault', 'k', data);
    expect((await client.getKeyInfo(VOLUME, 'ecdefault', 'k')).replicationType).toBe('EC');
    await expectReadBack('ecdefault', 'k', data);
  });

  it('a datanode stopped after the first stripe: the rest goes to a new block group, Java reads it all', async () => {
    const data = contractKeyBytes(2 * 3 * MiB + 777, 9);
    const writeChunks = async () =>
      new Map((await cluster.datanodeCounters()).map((d) => [d.uuid, d.commands['WriteChunk']?.ops ?? 0]));
    const before = await writeChunks();
    const out = await client.createKey(VOLUME, BUCKET, 'ec-failover', { replication: 'rs-3-2-1024k' });
    await out.write(data.subarray(0, 3 * MiB));
    const after = await writeChunks();
    const group = [...after].filter(([uuid, ops]) => ops > (before.get(uuid) ?? 0)).map(([uuid]) => uuid);
    expect(group).toHaveLength(5);
    const victim = group[1]!;
    await cluster.stopDatanode(victim);
    try {
      await out.write(data.subarray(3 * MiB));
      await out.close();
    } finally {
      await cluster.restartDatanode(victim);
    }
    const lookup = await cluster.lookupKey(VOLUME, BUCKET, 'ec-failover');
    expect(lookup.found && lookup.blocks.map((b) => b.lengthBytes)).toEqual([3 * MiB, 3 * MiB + 777]);
    await expectReadBack(BUCKET, 'ec-failover', data);
  });

  describe('rs-6-3-1024k on nine datanodes', () => {
    /** Keys of a cell and a bit, a stripe and a bit, and two groups and a bit (1 MiB internal blocks: 6 MiB groups). */
    const SIZES = [MiB + 3, 6 * MiB + 1, 2 * 6 * MiB + 1234];

    it('fastpath writes keys Java reads back, and reads back the keys Java writes', async () => {
      for (const size of SIZES) {
        const data = contractKeyBytes(size, size + 63);
        await client.writeKey(VOLUME, BUCKET, `rs63-fastpath-${size}`, data, {
          replication: 'rs-6-3-1024k',
          blockSizeBytes: MiB,
        });
        const lookup = await cluster.lookupKey(VOLUME, BUCKET, `rs63-fastpath-${size}`);
        if (!lookup.found) throw new Error(`rs63-fastpath-${size} not found`);
        expect(lookup.replication).toBe('rs-6-3-1024k');
        for (const group of lookup.blocks)
          expect(group.replicas.map((r) => r.replicaIndex).sort((a, b) => a - b)).toEqual([
            1, 2, 3, 4, 5, 6, 7, 8, 9,
          ]);
        await expectReadBack(BUCKET, `rs63-fastpath-${size}`, data);
      }
      await cluster.writeKeys(
        SIZES.map((size) => ({
          volume: VOLUME,
          bucket: BUCKET,
          key: `rs63-java-${size}`,
          size,
          seed: size + 64,
          replication: 'rs-6-3-1024k' as const,
          blockSizeBytes: MiB,
        })),
      );
      for (const size of SIZES) {
        const got = await client.readKey(VOLUME, BUCKET, `rs63-java-${size}`);
        expect(sha256(got)).toBe(sha256(contractKeyBytes(size, size + 64)));
      }
    });

    it('with the datanode of data replica 1 stopped, both clients read every rs-6-3 key, fastpath rebuilding', async () => {
      const first = await cluster.lookupKey(VOLUME, BUCKET, `rs63-java-${SIZES[2]}`);
      if (!first.found) throw new Error('the rs-6-3 key is missing');
      const victim = first.blocks[0]!.replicas.find((r) => r.replicaIndex === 1)!.datanodeUuid;
      // A stopped datanode fails its replica at once (no retry sweeps).
      const reader = createOzoneClient({ omAddress: cluster.omGrpcAddress, config: { readMaxRetries: 0 } });
      await cluster.stopDatanode(victim);
      try {
        for (const size of SIZES)
          for (const [key, seed] of [
            [`rs63-java-${size}`, size + 64],
            [`rs63-fastpath-${size}`, size + 63],
          ] as const) {
            const expected = sha256(contractKeyBytes(size, seed));
            const stream = await reader.openKey(VOLUME, BUCKET, key);
            try {
              expect([key, sha256(await stream.readFully(0, size))]).toEqual([key, expected]);
              const lookup = await cluster.lookupKey(VOLUME, BUCKET, key);
              // Rebuilt when a group has data on the stopped replica (index ≤ its data cells, at most 6).
              const lostHere =
                lookup.found &&
                lookup.blocks.some((b) =>
                  b.replicas.some(
                    (r) =>
                      r.datanodeUuid === victim &&
                      r.replicaIndex <= Math.min(6, Math.ceil(b.lengthBytes / MiB)),
                  ),
                );
              if (lostHere) expect([key, stream.stats.ecStripesRebuilt > 0]).toEqual([key, true]);
            } finally {
              stream.close();
            }
            expect(await cluster.readKeyWithJava(VOLUME, BUCKET, key)).toEqual({
              bytesRead: size,
              sha256: expected,
            });
          }
      } finally {
        reader.close();
        await cluster.restartDatanode(victim);
      }
    });
  });
});
