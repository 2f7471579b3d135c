// The datanode side of the mini cluster through the client's own channel: ReadChunk V0 and V1,
// Echo, a missing block, and one cached channel per datanode.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { getBlockRequest, readChunkRequest } from '../src/internal/block-requests.js';
import { DatanodeClientManager } from '../src/internal/grpc/datanode-client-manager.js';
import { dn, toNumber } from '../src/internal/proto/wire.js';

let cluster: MiniOzoneCluster;
let client: OzoneClient;
const manager = new DatanodeClientManager({
  maxReceiveBytes: 32 << 20,
  maxInFlight: 4,
  tls: undefined,
  reconnectBackoffMs: 1000,
});

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3 });
  client = createOzoneClient({ omAddress: cluster.omAddress });
  await client.createVolume('vol1');
  await client.createBucket('vol1', 'bucket1');
  await client.writeKey('vol1', 'bucket1', 'k', contractKeyBytes(50_000, 8));
});
afterAll(async () => {
  manager.close();
  client?.close();
  await cluster?.close();
});

describe('ReadChunk', () => {
  it('V1 answers buffers of bytes-per-checksum, V0 one data field, with the same bytes', async () => {
    const block = (await client.getKeyInfo('vol1', 'bucket1', 'k')).blocks[0];
    if (!block) throw new Error('no block');
    const target = block.datanodes[1] as { uuid: string; address: string };
    const ref = { containerId: block.containerId, localId: block.localId, blockCommitSequenceId: 0n };
    const channel = manager.channel(target.address);
    const got = await channel.send(getBlockRequest(ref, target.uuid), 5000);
    const chunk = got.getBlock?.blockData.chunks?.[0];
    if (!chunk) throw new Error('no chunk');
    expect(toNumber(chunk.len)).toBe(50_000);
    const v1 = await channel.send(readChunkRequest(ref, chunk, 0, 50_000, target.uuid), 5000);
    expect(v1.readChunk?.dataBuffers?.buffers?.map((b) => b?.length)).toEqual([
      16384,
      16384,
      16384,
      50_000 - 3 * 16384,
    ]);
    const v0request = readChunkRequest(ref, chunk, 0, 50_000, target.uuid);
    (v0request.readChunk as { readChunkVersion: number }).readChunkVersion = dn.ReadChunkVersion.V0;
    const v0 = await channel.send(v0request, 5000);
    expect(v0.readChunk?.dataBuffers).toBeNull();
    expect(Buffer.from(v0.readChunk?.data ?? []).equals(contractKeyBytes(50_000, 8))).toBe(true);
    expect(Buffer.concat(v1.readChunk?.dataBuffers?.buffers ?? []).equals(contractKeyBytes(50_000, 8))).toBe(
      true,
    );
  });

  it('a block the datanode does not have answers NO_SUCH_BLOCK as a typed error', async () => {
    const d = cluster.datanodes[0];
    if (!d) throw new Error('no datanode');
    await expect(
      manager
        .channel(d.address)
        .send(getBlockRequest({ containerId: 99n, localId: 1n, blockCommitSequenceId: 0n }, d.uuid), 5000),
    ).rejects.toMatchObject({
      code: 'ERR_OZONE_DATANODE_RESULT',
      result: 'NO_SUCH_BLOCK',
    });
  });
});

describe('Echo and channels', () => {
  it('Echo answers a payload of the asked size', async () => {
    const d = cluster.datanodes[2];
    if (!d) throw new Error('no datanode');
    const r = await manager.channel(d.address).send(
      {
        cmdType: dn.Type.Echo,
        containerID: 0 as never,
        datanodeUuid: d.uuid,
        version: 3,
        echo: { payloadSizeResp: 10 },
      },
      5000,
    );
    expect(r.echo?.payload?.length).toBe(10);
  });

  it('keeps one channel per datanode address', () => {
    for (const d of cluster.datanodes) {
      expect(manager.channel(d.address)).toBe(manager.channel(d.address));
    }
    expect(manager.size).toBe(3);
  });
});
