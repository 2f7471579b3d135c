// However many clients a process creates, the warm-up starts once, with the first client's plan,
// and every client works.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { currentWarmup } from '@fastpath/client-warmup';
import { createOzoneClient } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';

let cluster: MiniOzoneCluster;
beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3, tls: true });
});
afterAll(async () => {
  await cluster?.close();
});

describe('the warm-up of many TLS clients in one process', () => {
  it('starts at the first client, once, and each step runs once', async () => {
    expect(currentWarmup()).toBeUndefined();
    const tls = { caFile: cluster.caFile as string };
    const clients = [createOzoneClient({ omAddress: cluster.omAddress, tls })];
    const handle = currentWarmup();
    expect(handle?.steps).toEqual(['datanode-protocol', 'checksum', 'tls-credentials']);
    for (let i = 0; i < 3; i++) clients.push(createOzoneClient({ omAddress: cluster.omAddress, tls }));
    expect(currentWarmup()).toBe(handle);
    try {
      const [first] = clients;
      await first?.createVolume('oncevol');
      await first?.createBucket('oncevol', 'bucket1');
      const data = contractKeyBytes(100_000, 9);
      await first?.writeKey('oncevol', 'bucket1', 'k', data);
      for (const c of clients) expect((await c.readKey('oncevol', 'bucket1', 'k')).equals(data)).toBe(true);
      const outcomes = await (handle?.done ?? Promise.resolve([]));
      expect(outcomes.map((o) => [o.name, o.state])).toEqual([
        ['datanode-protocol', 'done'],
        ['checksum', 'done'],
        ['tls-credentials', 'done'],
      ]);
    } finally {
      for (const c of clients) c.close();
    }
  });
});
