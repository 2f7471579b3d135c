// fastpath's OM HA against Apache Ozone's own MiniOzoneHAClusterImpl (three OMs, SCM and three
// datanodes in one JVM): how a follower answers, the client contract over the service id, a
// leadership transfer and a leader kill under 16 writers and 16 readers with every acknowledged
// key read back by Ozone's Java client, an OM that stays down, and all three down. Parameterised
// by the OM transport (`ozone.om.transport.class`): Hadoop RPC (Ozone's own client's) and gRPC,
// one after the other on one cluster (its start is the slow part): after each transport's cases
// every OM is running again, and each transport's volumes have names of their own.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient, type OzoneClient, type OzoneRpcError } from '@fastpath/ozone-fs-client';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing';
import { describeOzoneContract, type OzoneClusterAdapter } from '@fastpath/ozone-fs-client/testing/contract';
import { startRealOzoneCluster, type RealOzoneCluster } from '@fastpath/ozone-fixture';
import { REAL_CLUSTER_CAPABILITIES, realClusterAdapter } from './support/real-cluster-adapter.js';

jest.setTimeout(600_000);

const TRANSPORTS = [
  ['hadoop-rpc', 'org.apache.hadoop.ozone.om.protocolPB.Hadoop3OmTransportFactory'],
  ['grpc', 'org.apache.hadoop.ozone.om.protocolPB.GrpcOmTransportFactory'],
] as const;

let cluster: RealOzoneCluster;
beforeAll(async () => {
  cluster = await startRealOzoneCluster({ omHa: 3, datanodes: 3 });
});
afterAll(async () => {
  await cluster?.stop();
});

describe.each(TRANSPORTS)(
  "Apache Ozone's 3-OM MiniOzoneHAClusterImpl over %s",
  (transport, transportClass) => {
    let inspector: OzoneClient;
    let adapter: OzoneClusterAdapter;
    const clients: OzoneClient[] = [];
    const properties = (extra: Record<string, string> = {}): Record<string, string> => ({
      ...cluster.omClientProperties,
      'ozone.om.transport.class': transportClass,
      'ozone.client.wait.between.retries.millis': '500',
      ...extra,
    });
    const haClient = (extra: Record<string, string> = {}): OzoneClient => {
      const client = createOzoneClient({
        omAddress: cluster.omServiceId as string,
        userName: 'ha',
        properties: properties(extra),
      });
      clients.push(client);
      return client;
    };

    beforeAll(() => {
      inspector = haClient();
      const base = realClusterAdapter(cluster, inspector);
      adapter = { ...base, clientOptions: { properties: properties() } };
    });
    afterAll(async () => {
      for (const c of clients) c.close();
      // The cases below leave OMs stopped: every one runs again before the next transport's.
      for (const o of cluster.oms) {
        const probe = createOzoneClient({ omAddress: o.grpcAddress, omTimeoutMs: 5000 });
        const answer = await probe.listVolumes().catch((e: unknown) => e);
        probe.close();
        if (answer instanceof Error && (answer as OzoneRpcError).code === 'ERR_OZONE_UNAVAILABLE')
          await cluster.restartOm(o.nodeId);
      }
      const client = haClient();
      await client.listVolumes();
      client.close();
    });

    it('hands out the service id and each OM; a follower answers OMNotLeaderException naming the leader', async () => {
      expect(cluster.omServiceId).toBe('omservice');
      expect(cluster.oms.map((o) => o.nodeId)).toEqual(['omNode-1', 'omNode-2', 'omNode-3']);
      const leader = await cluster.omLeader();
      const follower = cluster.oms.find((o) => o.nodeId !== leader);
      if (transport === 'hadoop-rpc') {
        // A RemoteException with the class in its header and the message as its first line (the
        // stack trace after it), as Hadoop's Server sends it.
        const direct = createOzoneClient({
          omAddress: follower?.rpcAddress as string,
          omTimeoutMs: 30_000,
          properties: { 'ozone.om.transport.class': transportClass },
        });
        clients.push(direct);
        expect(direct.omTransport).toBe('hadoop-rpc');
        const err = await direct.listVolumes().catch((e: unknown) => e);
        expect(err).toMatchObject({
          code: 'ERR_HADOOP_RPC_REMOTE',
          className: 'org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException',
        });
        expect((err as { firstLine: string }).firstLine).toMatch(
          new RegExp(
            `^OM:${follower?.nodeId} is not the leader\\. Suggested leader is OM:${leader}\\[[^\\]]*/127\\.0\\.0\\.1\\]\\.`,
          ),
        );
        return;
      }
      const direct = createOzoneClient({ omAddress: follower?.grpcAddress as string, omTimeoutMs: 30_000 });
      clients.push(direct);
      const err = (await direct.listVolumes().catch((e: unknown) => e)) as OzoneRpcError;
      expect(err).toMatchObject({ code: 'ERR_OZONE_RPC_FAILED', grpcCode: 13 });
      const details = (err.cause as { details: string }).details;
      // The same text the embedded cluster's followers send (Ozone's InetAddress.toString() in brackets).
      expect(details).toMatch(
        new RegExp(
          `^org\\.apache\\.hadoop\\.ozone\\.om\\.exceptions\\.OMNotLeaderException: OM:${follower?.nodeId} is not the leader\\. Suggested leader is OM:${leader}\\[[^\\]]*/127\\.0\\.0\\.1\\]\\.`,
        ),
      );
    });

    describe('the client contract over the service id', () => {
      describeOzoneContract(() => adapter, REAL_CLUSTER_CAPABILITIES);
    });

    it('a leadership transfer and then a leader kill under 16 writers and 16 readers: nothing lost, doubled or misread', async () => {
      const client = haClient();
      const volume = `havol${transport === 'grpc' ? 'g' : 'h'}${process.pid % 10000}`;
      await client.createVolume(volume);
      await client.createBucket(volume, 'load', { layout: 'FILE_SYSTEM_OPTIMIZED' });
      const acked: Array<{ key: string; size: number; seed: number }> = [];
      const writeErrors: unknown[] = [];
      const readMismatches: string[] = [];
      let reads = 0;
      let stop = false;
      const writer = async (w: number): Promise<void> => {
        for (let n = 0; !stop; n++) {
          const size = 1024 + ((w * 131 + n * 977) % 8192);
          const seed = w * 1000 + n;
          const key = `w${w}/k${n}`;
          try {
            await client.writeKey(volume, 'load', key, contractKeyBytes(size, seed));
            acked.push({ key, size, seed });
          } catch (err) {
            writeErrors.push(err);
          }
        }
      };
      const reader = async (r: number): Promise<void> => {
        for (let n = 0; !stop; n++) {
          const pick = acked[(r * 7919 + n * 104_729) % Math.max(acked.length, 1)];
          if (pick === undefined) {
            await new Promise((resolve) => setTimeout(resolve, 20));
            continue;
          }
          const bytes = await client.readKey(volume, 'load', pick.key);
          reads++;
          if (!bytes.equals(contractKeyBytes(pick.size, pick.seed))) readMismatches.push(pick.key);
        }
      };
      const until = async (what: string, condition: () => boolean): Promise<void> => {
        for (const end = Date.now() + 240_000; !condition(); await new Promise((r) => setTimeout(r, 50)))
          if (Date.now() > end) throw new Error(`not within 240 s: ${what}`);
      };
      const workers = [
        ...Array.from({ length: 16 }, (_, w) => writer(w)),
        ...Array.from({ length: 16 }, (_, r) => reader(r)),
      ];
      const all = Promise.allSettled(workers);
      try {
        await until('32 keys written', () => acked.length >= 32);
        const first = await cluster.omLeader();
        const next = cluster.oms.find((o) => o.nodeId !== first)?.nodeId as string;
        await cluster.transferOmLeader(next);
        const afterTransfer = acked.length;
        await until('32 keys written after the transfer', () => acked.length >= afterTransfer + 32);
        // The new leader is killed: the remaining two elect a leader while the load runs.
        await cluster.stopOm(next);
        const afterKill = acked.length;
        await until('32 keys written after the kill', () => acked.length >= afterKill + 32);
      } finally {
        stop = true;
      }
      for (const s of await all) if (s.status === 'rejected') throw s.reason;
      expect(readMismatches).toEqual([]);
      expect(reads).toBeGreaterThan(0);
      // The only write failures allowed are the killed OM's own answer to calls it was applying
      // when it went down: its handler interrupted, in the call ("Call interrupted") or while it
      // asked the SCM for the key's block ("Interrupted waiting to send RPC request to server",
      // Hadoop's IPC client), an OMResponse INTERNAL_ERROR in-band, so a final answer for Ozone's
      // Java client too; those keys were never acknowledged and are checked no further.
      expect(
        writeErrors.filter(
          (e) =>
            !(
              e instanceof Error &&
              /INTERNAL_ERROR: (Call interrupted|Interrupted waiting to send RPC request)/.test(e.message)
            ),
        ),
      ).toEqual([]);
      // Every acknowledged key is there once, with its length, and Ozone's Java client reads it verified.
      const names = acked.map((a) => a.key);
      expect(new Set(names).size).toBe(names.length);
      for (const { key, size, seed } of acked) {
        const javaRead = await cluster.readKeyWithJava(volume, 'load', key);
        expect({ key, ...javaRead }).toEqual({
          key,
          bytesRead: size,
          sha256: createHash('sha256').update(contractKeyBytes(size, seed)).digest('hex'),
        });
      }
      const leader = await cluster.omLeader();
      expect(client.omLeader?.nodeId).toBe(leader);
      expect(client.omStats.leaderChanges).toBeGreaterThanOrEqual(2);
      expect(await client.metrics.metrics()).toMatch(
        new RegExp(`ozone_client_om_leader\\{[^}]*node_id="${leader}"[^}]*\\} 1`),
      );
      process.stderr.write(
        `OM HA load: ${acked.length} keys acknowledged, ${reads} reads, client ${JSON.stringify(client.omStats)}\n`,
      );
    });

    it('with an OM that stays down, keeps working on the other two, through a transfer between them', async () => {
      // The OM killed under load stays down.
      const running = [];
      for (const o of cluster.oms) {
        const c = createOzoneClient({ omAddress: o.grpcAddress, omTimeoutMs: 5000 });
        clients.push(c);
        const answer = await c.listVolumes().catch((e: unknown) => e);
        if (!(answer instanceof Error && (answer as OzoneRpcError).code === 'ERR_OZONE_UNAVAILABLE'))
          running.push(o.nodeId);
      }
      expect(running).toHaveLength(2);
      const client = haClient();
      const volume = `staydown${transport === 'grpc' ? 'g' : 'h'}${process.pid % 10000}`;
      await client.createVolume(volume);
      await client.createBucket(volume, 'bkt');
      await client.writeKey(volume, 'bkt', 'a', Buffer.from('on two'));
      const leader = await cluster.omLeader();
      await cluster.transferOmLeader(running.find((n) => n !== leader) as string);
      await client.renameKey(volume, 'bkt', 'a', 'b');
      expect((await client.readKey(volume, 'bkt', 'b')).toString()).toBe('on two');
      expect((await client.listKeys(volume, 'bkt')).map((k) => k.name)).toEqual(['b']);
      expect(client.omLeader?.nodeId).toBe(await cluster.omLeader());
    });

    it('with all three down: ERR_OZONE_OM_FAILOVER_EXHAUSTED after the configured failovers, never a hang', async () => {
      const client = haClient({ 'ozone.client.failover.max.attempts': '6' });
      await client.listVolumes();
      for (const o of cluster.oms) {
        const probe = createOzoneClient({ omAddress: o.grpcAddress, omTimeoutMs: 5000 });
        clients.push(probe);
        const answer = await probe.listVolumes().catch((e: unknown) => e);
        if (!(answer instanceof Error && (answer as OzoneRpcError).code === 'ERR_OZONE_UNAVAILABLE'))
          await cluster.stopOm(o.nodeId);
      }
      const before = client.omStats.attempts;
      const err = await client.listVolumes().catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'ERR_OZONE_OM_FAILOVER_EXHAUSTED', retriable: true, failovers: 6 });
      expect(client.omStats.attempts - before).toBe(7);
    });
  },
);
