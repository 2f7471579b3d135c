// TLS with a generated CA: the contract suite's metadata and data paths over TLS, and the
// failures a client without the CA meets.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
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

describe('a TLS mini cluster', () => {
  // Warm-up off first, so that the second client is the one that starts the process's warm-up.
  it.each([
    ['off', 'false'],
    ['on', 'true'],
  ])(
    'serves a client that trusts its CA (warm-up %s): OM calls, writes, verified reads',
    async (mode, enabled) => {
      expect(cluster.caFile).toBeDefined();
      const client = createOzoneClient({
        omAddress: cluster.omAddress,
        tls: { caFile: cluster.caFile as string },
        properties: { 'ozone.client.warmup.enabled': enabled },
      });
      const volume = `tlsvol${mode}`;
      try {
        await client.createVolume(volume);
        await client.createBucket(volume, 'bucket1');
        await client.writeKey(volume, 'bucket1', 'k', contractKeyBytes(300_000, 4));
        expect((await client.readKey(volume, 'bucket1', 'k')).equals(contractKeyBytes(300_000, 4))).toBe(
          true,
        );
      } finally {
        client.close();
      }
    },
  );

  it('refuses a plaintext client with a retriable unavailable error', async () => {
    const client = createOzoneClient({ omAddress: cluster.omAddress, omTimeoutMs: 5000 });
    try {
      await expect(client.listVolumes()).rejects.toMatchObject({ code: 'ERR_OZONE_UNAVAILABLE' });
    } finally {
      client.close();
    }
  });

  it('an unreadable CA file is a typed configuration error at creation', () => {
    expect(() =>
      createOzoneClient({ omAddress: cluster.omAddress, tls: { caFile: '/nonexistent/ca.pem' } }),
    ).toThrow(expect.objectContaining({ code: 'ERR_OZONE_TLS_CONFIG' }));
  });
});
