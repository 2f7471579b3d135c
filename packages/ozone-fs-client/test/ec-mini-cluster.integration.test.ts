// The embedded cluster hosts erasure-coded keys as Ozone lays them out: the OM takes an EC
// replication config on a key (and refuses what Ozone's default allowed-configs refuse), puts each
// block group on d + p datanodes with replica indexes 1..d+p in its pipeline, and each datanode
// holds its replica's cells with their own checksums and the group length in the block's metadata.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient, OmStatusError, type OzoneClient } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, writeEcKey, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { getBlockRequest, putBlockRequest } from '../src/internal/block-requests.js';
import { parseEcReplicationConfig, type EcReplicationConfig } from '../src/internal/ec/ec-stripe-layout.js';
import { directOmCalls } from '../src/testing/mini-ec-striper.js';
import { dn, hdds, toBigInt, toNumber, uint64 } from '../src/internal/proto/wire.js';
import { expectEcLayout } from './support/ec-layout.js';
import { uuidBits } from '../src/internal/ratis/pipeline-raft-group.js';

const RS_3_2 = parseEcReplicationConfig('rs-3-2-1024k');
// Small cells keep the keys small; the OM's allowed configs are widened for them, as a test cluster may be.
const RS_6_3_SMALL = parseEcReplicationConfig('rs-6-3-4k');
const MiB = 1024 * 1024;

let cluster: MiniOzoneCluster;
let client: OzoneClient;
let om: ReturnType<typeof directOmCalls>;

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 9 });
  client = createOzoneClient({ omAddress: cluster.omAddress });
  om = directOmCalls(cluster.omAddress);
  await client.createVolume('vol');
  await client.createBucket('vol', 'ecb');
});

afterAll(async () => {
  om?.close();
  client?.close();
  await cluster?.close();
});

async function lookup(key: string) {
  const r = await om.submit('LookupKey', {
    lookupKeyRequest: { keyArgs: { volumeName: 'vol', bucketName: 'ecb', keyName: key } },
  });
  return r.lookupKeyResponse!.keyInfo!;
}

/**
 * Writes a key with the striper and checks it end to end (test/support/ec-layout.ts): the OM's
 * view, each replica's length, BlockData and chunks, the bytes reassembled from the data
 * replicas, and every stripe's parity.
 */
async function checkEcKey(key: string, data: Uint8Array, config: EcReplicationConfig, groupBytes?: number) {
  await writeEcKey(cluster, {
    volume: 'vol',
    bucket: 'ecb',
    key,
    data,
    config,
    ...(groupBytes ? { blockGroupBytes: groupBytes } : {}),
  });
  const lengths = await expectEcLayout(cluster, await lookup(key), data, config);
  expect(lengths).toHaveLength(groupBytes ? Math.max(1, Math.ceil(data.length / groupBytes)) : 1);
}

describe('EC keys on the embedded cluster', () => {
  let defaultAllowed: RegExp;
  beforeAll(() => {
    defaultAllowed = cluster.om.replicationAllowedConfigs;
    cluster.om.replicationAllowedConfigs = /^EC\/(3-2-1024k|6-3-4k)$/;
  });
  afterAll(() => {
    cluster.om.replicationAllowedConfigs = defaultAllowed;
  });

  it.each([
    ['one byte', 1],
    ['one cell minus one', MiB - 1],
    ['one stripe plus one', 3 * MiB + 1],
    ['two stripes and a partial one', 7_000_000],
  ])('rs-3-2-1024k: %s', async (name, size) => {
    await checkEcKey(`rs32-${size}`, contractKeyBytes(size, size), RS_3_2);
  });

  it('rs-6-3 with 4 KiB cells: several block groups, the last with a partial stripe', async () => {
    const size = 3 * 6 * 4096 * 2 + 5000;
    await checkEcKey('rs63-groups', contractKeyBytes(size, 63), RS_6_3_SMALL, 6 * 4096 * 2);
  });

  it('an empty EC key has one group of length 0', async () => {
    await writeEcKey(cluster, {
      volume: 'vol',
      bucket: 'ecb',
      key: 'empty',
      data: new Uint8Array(0),
      config: RS_3_2,
    });
    const info = await lookup('empty');
    expect(info.type).toBe(hdds.ReplicationType.EC);
    expect(toNumber(info.dataSize)).toBe(0);
  });
});

describe('replica indexes on the datanodes', () => {
  it('a command naming another replica index than its container holds: CONTAINER_NOT_FOUND', async () => {
    const [group] = await writeEcKey(cluster, {
      volume: 'vol',
      bucket: 'ecb',
      key: 'indexes',
      data: contractKeyBytes(5000, 5),
      config: RS_3_2,
    });
    const block = { containerId: group!.containerId, localId: group!.localId, blockCommitSequenceId: 0n };
    const replica2 = group!.datanodes[1]!;
    const ask = (replicaIndex: number) => {
      const request = getBlockRequest(block, replica2);
      request.getBlock!.blockID.replicaIndex = replicaIndex;
      return cluster.datanode(replica2).applyCommitted(request);
    };
    expect((await ask(2)).result).toBe(dn.Result.SUCCESS);
    expect((await ask(0)).result).toBe(dn.Result.SUCCESS);
    const wrong = await ask(3);
    expect(wrong.result).toBe(dn.Result.CONTAINER_NOT_FOUND);
    expect(wrong.message).toContain('replica index 3');
  });
});

describe('a replica that gets only its PutBlock', () => {
  it('records the replica index the PutBlock names, as a datanode creating the container does', async () => {
    const [group] = await writeEcKey(cluster, {
      volume: 'vol',
      bucket: 'ecb',
      key: 'putblock-only',
      data: contractKeyBytes(10, 10),
      config: RS_3_2,
    });
    // A fresh block in a container that datanode does not hold yet.
    const replica3 = group!.datanodes[2]!;
    const block = { containerId: 9_000_001n, localId: 5n, blockCommitSequenceId: 0n, replicaIndex: 3 };
    const put = await cluster
      .datanode(replica3)
      .applyCommitted(putBlockRequest(block, [], 0, true, replica3));
    expect(put.result).toBe(dn.Result.SUCCESS);
    const ask = (replicaIndex: number) =>
      cluster.datanode(replica3).applyCommitted(getBlockRequest({ ...block, replicaIndex }, replica3));
    expect((await ask(3)).result).toBe(dn.Result.SUCCESS);
    expect((await ask(2)).result).toBe(dn.Result.CONTAINER_NOT_FOUND);
  });
});

describe("a bucket's default replication", () => {
  it('applies to a key that asks for none, and InfoBucket states it', async () => {
    await om.submit('CreateBucket', {
      createBucketRequest: {
        bucketInfo: {
          volumeName: 'vol',
          bucketName: 'ec-default',
          isVersionEnabled: false,
          storageType: hdds.StorageTypeProto.DISK,
          defaultReplicationConfig: {
            type: hdds.ReplicationType.EC,
            ecReplicationConfig: { data: 3, parity: 2, codec: 'rs', ecChunkSize: MiB },
          },
        },
      },
    });
    const bucket = await om.submit('InfoBucket', {
      infoBucketRequest: { volumeName: 'vol', bucketName: 'ec-default' },
    });
    expect(bucket.infoBucketResponse!.bucketInfo!.defaultReplicationConfig).toMatchObject({
      type: hdds.ReplicationType.EC,
      ecReplicationConfig: { data: 3, parity: 2, codec: 'rs', ecChunkSize: MiB },
    });
    const keyArgs = { volumeName: 'vol', bucketName: 'ec-default', keyName: 'k' };
    const created = await om.submit('CreateKey', { createKeyRequest: { keyArgs } });
    const info = created.createKeyResponse!.keyInfo!;
    expect(info.type).toBe(hdds.ReplicationType.EC);
    expect(info.ecReplicationConfig).toMatchObject({ data: 3, parity: 2 });
    expect(info.keyLocationList![0]!.keyLocations![0]!.pipeline!.memberReplicaIndexes).toEqual([
      1, 2, 3, 4, 5,
    ]);
    // A key's own replication wins over the bucket's.
    const own = await om.submit('CreateKey', {
      createKeyRequest: {
        keyArgs: {
          ...keyArgs,
          keyName: 'k2',
          type: hdds.ReplicationType.RATIS,
          factor: hdds.ReplicationFactor.ONE,
        },
      },
    });
    expect(own.createKeyResponse!.keyInfo!.type).toBe(hdds.ReplicationType.RATIS);
  });

  it('an EC default outside the allowed configs: INVALID_REQUEST, no bucket', async () => {
    const err = await om
      .submit('CreateBucket', {
        createBucketRequest: {
          bucketInfo: {
            volumeName: 'vol',
            bucketName: 'xor-default',
            isVersionEnabled: false,
            storageType: hdds.StorageTypeProto.DISK,
            defaultReplicationConfig: {
              type: hdds.ReplicationType.EC,
              ecReplicationConfig: { data: 2, parity: 1, codec: 'xor', ecChunkSize: MiB },
            },
          },
        },
      })
      .catch((e: unknown) => e);
    expect((err as OmStatusError).status).toBe('INVALID_REQUEST');
    await expect(client.getBucket('vol', 'xor-default')).rejects.toMatchObject({
      status: 'BUCKET_NOT_FOUND',
    });
  });
});

describe('AllocateBlock with an exclude list', () => {
  it('puts the next EC group on datanodes and a pipeline the client did not exclude, in a container of its own', async () => {
    const keyArgs = {
      volumeName: 'vol',
      bucketName: 'ecb',
      keyName: 'excluding',
      type: hdds.ReplicationType.EC,
      ecReplicationConfig: { data: 3, parity: 2, codec: 'rs', ecChunkSize: MiB },
    };
    const created = await om.submit('CreateKey', { createKeyRequest: { keyArgs } });
    const clientID = created.createKeyResponse!.ID!;
    const first = created.createKeyResponse!.keyInfo!.keyLocationList![0]!.keyLocations![0]!;
    const members = (loc: typeof first) => loc.pipeline!.members!.map((m) => m.uuid!);
    const container = (loc: typeof first) => toBigInt(loc.blockID.containerBlockID.containerID);
    const allocate = async (excludeList: object) =>
      (await om.submit('AllocateBlock', { allocateBlockRequest: { clientID, keyArgs, excludeList } }))
        .allocateBlockResponse!.keyLocation!;
    const failed = members(first)[1]!;
    const away = await allocate({ datanodes: [failed] });
    expect(members(away)).not.toContain(failed);
    expect(members(away)).toHaveLength(5);
    expect(container(away)).not.toBe(container(first));
    const pipelineId = away.pipeline!.id.id!;
    const other = await allocate({
      datanodes: [failed],
      pipelineIds: [{ id: pipelineId, uuid128: uuidBits(pipelineId) }],
    });
    expect(other.pipeline!.id.id).not.toBe(pipelineId);
    expect(members(other)).not.toContain(failed);
    // Four datanodes excluded of nine leave five: one pipeline, then none.
    const four = cluster.datanodes.slice(0, 4).map((d) => d.uuid);
    const last = await allocate({ datanodes: four });
    expect(members(last)).toEqual(cluster.datanodes.slice(4).map((d) => d.uuid));
    const lastId = last.pipeline!.id.id!;
    const err = await allocate({
      datanodes: four,
      pipelineIds: [{ id: lastId, uuid128: uuidBits(lastId) }],
    }).catch((e: unknown) => e);
    expect((err as OmStatusError).status).toBe('KEY_ALLOCATION_ERROR');
  });
});

describe('what the OM refuses', () => {
  async function createEc(
    key: string,
    ecReplicationConfig: { data: number; parity: number; codec: string; ecChunkSize: number },
  ) {
    return om.submit('CreateKey', {
      createKeyRequest: {
        keyArgs: {
          volumeName: 'vol',
          bucketName: 'ecb',
          keyName: key,
          dataSize: uint64(0),
          type: hdds.ReplicationType.EC,
          ecReplicationConfig,
        },
      },
    });
  }

  it('xor-2-1-1024k and small cells are outside the default allowed configs: INVALID_REQUEST', async () => {
    for (const config of [
      { data: 2, parity: 1, codec: 'xor', ecChunkSize: MiB },
      { data: 6, parity: 3, codec: 'rs', ecChunkSize: 4096 },
    ]) {
      const err = await createEc('refused', config).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OmStatusError);
      expect((err as OmStatusError).status).toBe('INVALID_REQUEST');
    }
  });

  it('an unknown codec or a zero parity count: INVALID_REQUEST', async () => {
    for (const config of [
      { data: 3, parity: 2, codec: 'lrc', ecChunkSize: MiB },
      { data: 3, parity: 0, codec: 'rs', ecChunkSize: MiB },
    ]) {
      const err = await createEc('refused', config).catch((e: unknown) => e);
      expect((err as OmStatusError).status).toBe('INVALID_REQUEST');
    }
  });

  it('EC without a config: INVALID_REQUEST', async () => {
    const err = await om
      .submit('CreateKey', {
        createKeyRequest: {
          keyArgs: { volumeName: 'vol', bucketName: 'ecb', keyName: 'x', type: hdds.ReplicationType.EC },
        },
      })
      .catch((e: unknown) => e);
    expect((err as OmStatusError).status).toBe('INVALID_REQUEST');
  });
});

describe('a cluster with too few datanodes', () => {
  it('rs-6-3 on 5 datanodes: KEY_ALLOCATION_ERROR, nothing opened', async () => {
    await using small = await startMiniOzoneCluster({ datanodes: 5 });
    const c = createOzoneClient({ omAddress: small.omAddress });
    try {
      await c.createVolume('vol');
      await c.createBucket('vol', 'ecb');
      const err = await writeEcKey(small, {
        volume: 'vol',
        bucket: 'ecb',
        key: 'k',
        data: new Uint8Array(10),
        config: parseEcReplicationConfig('rs-6-3-1024k'),
      }).catch((e: unknown) => e);
      expect((err as OmStatusError).status).toBe('KEY_ALLOCATION_ERROR');
      await expect(c.getKeyInfo('vol', 'ecb', 'k')).rejects.toThrow();
    } finally {
      c.close();
    }
  });
});
