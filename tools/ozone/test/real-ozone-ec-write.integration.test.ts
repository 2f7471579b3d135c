// fastpath writes erasure-coded keys to a real MiniOzoneCluster: the datanodes take its
// WriteChunks and PutBlocks on their standalone ports (checksums, replica indexes, block group
// lengths), the OM takes its CreateKey, AllocateBlock and CommitKey, and Ozone's own Java client
// reads every key back byte for byte with checksums verified, as fastpath's reader does. Keys of
// one byte, a cell and a bit, stripes and a partial one, several block groups, a key written EC
// because its bucket's default is, and one whose write lost a datanode after its first stripe.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { startRealOzoneCluster, type RealOzoneCluster } from '@fastpath/ozone-fixture';

jest.setTimeout(600_000);

const VOLUME = 'ecvol';
const BUCKET = 'ecbkt';
const MiB = 1024 * 1024;

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('fastpath writes EC keys to a real MiniOzoneCluster', () => {
  let cluster: RealOzoneCluster;
  let client: OzoneClient;

  beforeAll(async () => {
    // rs-3-2 needs five datanodes; a sixth lets SCM choose.
    cluster = await startRealOzoneCluster({ datanodes: 6 });
    client = createOzoneClient({ omAddress: cluster.omGrpcAddress, userName: 'writer' });
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
});
