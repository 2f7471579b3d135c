// TLS with a generated CA: the contract suite's metadata and data paths over TLS (the OM's gRPC
// port, the datanodes' gRPC ports and their Ratis ports), the CA taken from the OM's service list
// as Ozone's client takes it, and the failures a client without the CA meets.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient } from '@fastpath/ozone-fs-client';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestCertificateAuthority } from '@fastpath/test-support';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';

const HADOOP_RPC = 'org.apache.hadoop.ozone.om.protocolPB.Hadoop3OmTransportFactory';
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

  it.each([
    ['the tls option without a CA', { tls: {} }, {}],
    [
      "the cluster's settings (ozone.security.enabled, hdds.grpc.tls.enabled)",
      {},
      { 'ozone.security.enabled': 'true', 'hdds.grpc.tls.enabled': 'true' },
    ],
  ])(
    'takes the datanodes’ CA from the OM’s service list with %s: Ratis writes and reads over TLS',
    async (_name, extra, properties) => {
      // Over Hadoop RPC: the OM's gRPC port would need the CA before the OM could be asked for it.
      const client = createOzoneClient({
        omAddress: cluster.omRpcAddress,
        properties: {
          'ozone.om.transport.class': HADOOP_RPC,
          'ozone.client.warmup.enabled': 'false',
          ...properties,
        },
        ...extra,
      });
      const volume = `tlsca${Object.keys(properties).length}`;
      try {
        await client.createVolume(volume);
        await client.createBucket(volume, 'bkt');
        const data = contractKeyBytes(1_500_000, 7);
        await client.writeKey(volume, 'bkt', 'k', data);
        expect((await client.readKey(volume, 'bkt', 'k')).equals(data)).toBe(true);
        // The write went through the pipeline's Raft group (its leader's RATIS port).
        expect(client.writePipelines.length).toBeGreaterThan(0);
      } finally {
        client.close();
      }
    },
  );

  it('a client trusting another CA: typed TLS errors from the datanodes and Ratis, nothing written', async () => {
    const other = await createTestCertificateAuthority('another CA');
    const otherCaFile = join(cluster.dir, 'other-ca.pem');
    writeFileSync(otherCaFile, other.caCert);
    await other.dispose();
    const writer = createOzoneClient({
      omAddress: cluster.omAddress,
      tls: { caFile: cluster.caFile as string },
    });
    const stranger = createOzoneClient({
      omAddress: cluster.omRpcAddress,
      properties: { 'ozone.om.transport.class': HADOOP_RPC, 'ozone.client.read.retry.max': '0' },
      tls: { caFile: otherCaFile },
    });
    try {
      await writer.createVolume('tlsother');
      await writer.createBucket('tlsother', 'bkt');
      await writer.writeKey('tlsother', 'bkt', 'known', contractKeyBytes(10_000, 1));
      await expect(
        stranger.writeKey('tlsother', 'bkt', 'refused', contractKeyBytes(10_000, 2)),
      ).rejects.toMatchObject({
        code: 'ERR_RATIS_TLS',
      });
      await expect(writer.getKeyInfo('tlsother', 'bkt', 'refused')).rejects.toMatchObject({
        code: 'ERR_OZONE_KEY_NOT_FOUND',
      });
      const readError = await stranger.readKey('tlsother', 'bkt', 'known').catch((e: unknown) => e);
      // Every replica's datanode refused the handshake: each attempt names the certificate.
      expect(readError).toMatchObject({ code: 'ERR_OZONE_REPLICAS_EXHAUSTED' });
      expect((readError as Error).message).toMatch(/certificate/i);
    } finally {
      writer.close();
      stranger.close();
    }
  });

  it('an unreadable CA file is a typed configuration error at creation', () => {
    expect(() =>
      createOzoneClient({ omAddress: cluster.omAddress, tls: { caFile: '/nonexistent/ca.pem' } }),
    ).toThrow(expect.objectContaining({ code: 'ERR_OZONE_TLS_CONFIG' }));
  });
});
