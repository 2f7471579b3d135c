// OM HA against the embedded cluster's three OM nodes (one namespace, one leader, followers
// answering OMNotLeaderException naming it, as an OM does over Hadoop RPC and over gRPC): leader
// changes, a leader not ready, OMs down, over each transport; writes re-sent after a lost answer
// (over Hadoop RPC the OM's retry cache answers them, over gRPC the client takes the OM's "already
// done" as its own earlier effect).
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createOzoneClient,
  newFileSystemInstance,
  type OzoneClient,
  type OzoneClientOptions,
  type OmTransportName,
} from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, until, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { omTransportClass } from '@fastpath/ozone-fs-client/testing/contract';
import { OM_TRANSPORTS } from './support/om-transports.js';

let cluster: MiniOzoneCluster;
const clients: OzoneClient[] = [];
const WAIT_MS = 20;

function haClient(
  transport: OmTransportName = 'hadoop-rpc',
  extra: Partial<OzoneClientOptions> = {},
  maxAttempts = 30,
): OzoneClient {
  const client = createOzoneClient({
    omAddress: 'omservice',
    userName: 'ha',
    omTimeoutMs: 1000,
    omReconnectBackoffMs: 100,
    properties: {
      ...cluster.omClientProperties,
      'ozone.om.transport.class': omTransportClass(transport),
      'ozone.client.wait.between.retries.millis': String(WAIT_MS),
      'ozone.client.failover.max.attempts': String(maxAttempts),
    },
    ...extra,
  });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3, omHa: 3 });
  const setup = haClient();
  await setup.createVolume('havol');
  await setup.createBucket('havol', 'hab', { layout: 'LEGACY' });
});
afterEach(async () => {
  cluster.clearFaults();
  for (const nodeId of ['omNode-1', 'omNode-2', 'omNode-3']) await cluster.startOm(nodeId);
  cluster.transferOmLeader('omNode-1');
  // grpc-js shares subchannels between the clients of a process, so a restarted OM's address may
  // still be in the reconnect backoff a stopped node left: a next test whose client has few
  // failovers could spend them all inside it. A client with room to wait reaches the leader first.
  await haClient('grpc').getVolume('havol');
});
afterAll(async () => {
  for (const c of clients) c.close();
  await cluster?.close();
});

describe('the embedded OM HA cluster', () => {
  it('hands out the service id, its nodes and the client configuration under Ozone keys', () => {
    expect(cluster.omServiceId).toBe('omservice');
    expect(cluster.omNodes.map((n) => n.nodeId)).toEqual(['omNode-1', 'omNode-2', 'omNode-3']);
    const p = cluster.omClientProperties;
    expect(p['ozone.om.nodes.omservice']).toBe('omNode-1,omNode-2,omNode-3');
    expect(p['ozone.om.grpc.port.omservice.omNode-2']).toBe(cluster.omNodes[1]?.address.split(':')[1]);
    expect(p['ozone.om.address.omservice.omNode-2']).toBe(cluster.omNodes[1]?.rpcAddress);
  });

  it('without ozone.om.transport.class a client reaches the service over Hadoop RPC, as Ozone does', async () => {
    const client = createOzoneClient({ omAddress: 'omservice', properties: cluster.omClientProperties });
    clients.push(client);
    expect(client.omTransport).toBe('hadoop-rpc');
    await client.getVolume('havol');
    expect(client.omLeader).toEqual({ nodeId: 'omNode-1', address: cluster.omNodes[0]?.rpcAddress });
  });

  it('a follower answers as an OM does over Hadoop RPC: a RemoteException, OMNotLeaderException naming the leader', async () => {
    const follower = createOzoneClient({
      omAddress: cluster.omNodes[1]?.rpcAddress as string,
      omTimeoutMs: 1000,
      properties: { 'ozone.om.transport.class': omTransportClass('hadoop-rpc') },
    });
    clients.push(follower);
    const err = await follower.getVolume('havol').catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'ERR_HADOOP_RPC_REMOTE',
      className: 'org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException',
      firstLine: 'OM:omNode-2 is not the leader. Suggested leader is OM:omNode-1[localhost/127.0.0.1].',
    });
  });

  it('a follower answers as a gRPC OM does: INTERNAL, OMNotLeaderException naming the leader', async () => {
    const follower = createOzoneClient({
      omAddress: cluster.omNodes[1]?.address as string,
      omTimeoutMs: 1000,
    });
    clients.push(follower);
    const err = (await follower.getVolume('havol').catch((e: unknown) => e)) as Error & { cause: unknown };
    expect(err).toMatchObject({ code: 'ERR_OZONE_RPC_FAILED', grpcCode: 13 });
    expect((err.cause as { details: string }).details).toBe(
      'org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException: OM:omNode-2 is not the leader. Suggested leader is OM:omNode-1[localhost/127.0.0.1].',
    );
  });
});

describe.each(OM_TRANSPORTS)('failover over %s', (transport) => {
  const nodeAddress = (i: number): string | undefined =>
    transport === 'grpc' ? cluster.omNodes[i]?.address : cluster.omNodes[i]?.rpcAddress;

  it('follows a leader change by going straight to the leader the old one names', async () => {
    const client = haClient(transport);
    expect(client.omLeader).toBeUndefined();
    await client.getVolume('havol');
    expect(client.omLeader).toEqual({ nodeId: 'omNode-1', address: nodeAddress(0) });
    const refusedBefore = new Map(cluster.omHa.refusals);
    cluster.transferOmLeader('omNode-3');
    await client.writeKey('havol', 'hab', 'after-transfer', Buffer.from('moved'));
    expect(client.omLeader).toEqual({ nodeId: 'omNode-3', address: nodeAddress(2) });
    // One refusal by the old leader, none by omNode-2: rotation would have asked it first.
    expect(cluster.omHa.refusals.get('omNode-1')).toBe((refusedBefore.get('omNode-1') ?? 0) + 1);
    expect(cluster.omHa.refusals.get('omNode-2') ?? 0).toBe(refusedBefore.get('omNode-2') ?? 0);
    expect(client.omStats).toMatchObject({ suggestedLeaderHops: 1, waitedMs: 0 });
    expect((await client.readKey('havol', 'hab', 'after-transfer')).toString()).toBe('moved');
    const metrics = await client.metrics.metrics();
    expect(metrics).toMatch(/ozone_client_om_leader\{[^}]*node_id="omNode-3"[^}]*\} 1/);
    expect(metrics).toMatch(/ozone_client_om_failovers_total\{[^}]*reason="suggested-leader"\} 1/);
  });

  it('asks a leader that is not ready again, waiting longer each time, and never moves on', async () => {
    const client = haClient(transport);
    await client.getVolume('havol');
    const refusedBefore = cluster.omHa.refusals.get('omNode-1') ?? 0;
    cluster.omHa.setLeaderReady(false);
    const call = client.getVolume('havol');
    await until(
      'three not-ready refusals',
      () => (cluster.omHa.refusals.get('omNode-1') ?? 0) >= refusedBefore + 3,
      10_000,
    );
    cluster.omHa.setLeaderReady(true);
    expect((await call).name).toBe('havol');
    const n = client.omStats.failovers.leaderNotReady;
    expect(n).toBeGreaterThanOrEqual(3);
    expect(client.omStats.failovers).toMatchObject({ notLeader: 0, unreachable: 0 });
    // Ozone's wait: × 1, × 2, … × n before the n-th ask in a row.
    expect(client.omStats.waitedMs).toBe((WAIT_MS * n * (n + 1)) / 2);
    expect(client.omLeader?.nodeId).toBe('omNode-1');
  });

  it('keeps working with a follower down, then with the leader down too, on the last node', async () => {
    const client = haClient(transport);
    await client.getVolume('havol');
    cluster.stopOm('omNode-2');
    await client.writeKey('havol', 'hab', 'one-down', Buffer.from('1'));
    expect(client.omLeader?.nodeId).toBe('omNode-1');
    // The leader goes: omNode-3 is elected (omNode-2 is down).
    cluster.stopOm('omNode-1');
    expect(cluster.omLeader).toBe('omNode-3');
    await client.writeKey('havol', 'hab', 'two-down', Buffer.from('2'));
    expect(client.omLeader?.nodeId).toBe('omNode-3');
    expect(client.omStats.failovers.unreachable).toBeGreaterThanOrEqual(1);
    expect((await client.readKey('havol', 'hab', 'one-down')).toString()).toBe('1');
  });

  it('with every OM down: ERR_OZONE_OM_FAILOVER_EXHAUSTED after the configured failovers, not a hang', async () => {
    const client = haClient(transport, {}, 8);
    await client.getVolume('havol');
    for (const nodeId of ['omNode-1', 'omNode-2', 'omNode-3']) cluster.stopOm(nodeId);
    const before = client.omStats;
    const err = await client.getVolume('havol').catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'ERR_OZONE_OM_FAILOVER_EXHAUSTED',
      retriable: true,
      service: 'omservice',
      failovers: 8,
    });
    expect((err as Error).cause).toMatchObject({
      code: transport === 'grpc' ? 'ERR_OZONE_UNAVAILABLE' : 'ERR_HADOOP_RPC_CONNECT',
    });
    expect(client.omStats.attempts - before.attempts).toBe(9);
    // A wait after each full round of the three nodes.
    expect(client.omStats.waitedMs - before.waitedMs).toBe(WAIT_MS * 2);
  });
});

describe('writes re-sent after a lost answer over Hadoop RPC: the OM retry cache applies each once', () => {
  // The lost answer: the client's call times out (omTimeoutMs), it moves on, the follower names
  // the leader, and the write goes back there with its client id and call id.
  async function lostAnswers(): Promise<{ client: OzoneClient }> {
    expect(cluster.omLeader).toBe('omNode-1');
    const client = haClient('hadoop-rpc');
    await client.writeKey('havol', 'hab', 'rc-from', Buffer.from('r'));
    cluster.om.injectFault({ command: 'CommitKey', times: 1, response: 'applied-no-answer' });
    cluster.om.injectFault({ command: 'RenameKey', times: 1, response: 'applied-no-answer' });
    cluster.om.injectFault({ command: 'CreateVolume', times: 1, response: 'applied-no-answer' });
    await client.writeKey('havol', 'hab', 'rc-lost', Buffer.from('exactly once'));
    await client.renameKey('havol', 'hab', 'rc-from', 'rc-to');
    await client.createVolume('rcvol');
    return { client };
  }

  it('a commit, a rename and a volume creation re-sent after their answers were lost are answered from the cache', async () => {
    const applied = (outcome: string): number => cluster.om.outcomes.get(outcome) ?? 0;
    const refusals = [
      'CommitKey KEY_NOT_FOUND',
      'RenameKey KEY_NOT_FOUND',
      'CreateVolume VOLUME_ALREADY_EXISTS',
    ];
    const refusedBefore = refusals.map(applied);
    const before = { hits: cluster.om.retryCacheHits, commit: applied('CommitKey OK') };
    const { client } = await lostAnswers();
    // Applied once each, answered OK from the cache: nothing for the client to excuse.
    expect(cluster.om.retryCacheHits - before.hits).toBe(3);
    expect(applied('CommitKey OK') - before.commit).toBe(2);
    expect(refusals.map(applied)).toEqual(refusedBefore);
    expect(client.omStats.resendsTolerated).toBe(0);
    expect((await client.readKey('havol', 'hab', 'rc-lost')).toString()).toBe('exactly once');
    expect((await client.readKey('havol', 'hab', 'rc-to')).toString()).toBe('r');
    expect((await client.getVolume('rcvol')).name).toBe('rcvol');
  });

  it('without the retry cache the same re-sends are applied again (the OM answers "not found" / "exists")', async () => {
    cluster.om.setRetryCache(false);
    try {
      const applied = (outcome: string): number => cluster.om.outcomes.get(outcome) ?? 0;
      const before = {
        hits: cluster.om.retryCacheHits,
        commit: applied('CommitKey KEY_NOT_FOUND'),
        exists: applied('CreateVolume VOLUME_ALREADY_EXISTS'),
      };
      const volume = 'rcvol2';
      const client = haClient('hadoop-rpc');
      await client.writeKey('havol', 'hab', 'nrc-from', Buffer.from('n'));
      cluster.om.injectFault({ command: 'CommitKey', times: 1, response: 'applied-no-answer' });
      cluster.om.injectFault({ command: 'CreateVolume', times: 1, response: 'applied-no-answer' });
      await client.writeKey('havol', 'hab', 'nrc-lost', Buffer.from('twice'));
      await client.createVolume(volume);
      expect(cluster.om.retryCacheHits).toBe(before.hits);
      expect(applied('CommitKey KEY_NOT_FOUND') - before.commit).toBe(1);
      expect(applied('CreateVolume VOLUME_ALREADY_EXISTS') - before.exists).toBe(1);
      // The client's own tolerance of its re-sends is what is left without the cache.
      expect(client.omStats.resendsTolerated).toBe(2);
    } finally {
      cluster.om.setRetryCache(true);
    }
  });
});

describe('writes re-sent after a lost answer over gRPC (the OM cannot de-duplicate them)', () => {
  it('a commit applied whose answer was lost: the re-sent commit finds it done, taken as success', async () => {
    const client = haClient('grpc');
    await client.getVolume('havol');
    const committedBefore = cluster.om.outcomes.get('CommitKey OK') ?? 0;
    const refusedBefore = cluster.om.outcomes.get('CommitKey KEY_NOT_FOUND') ?? 0;
    cluster.om.injectFault({ command: 'CommitKey', times: 1, response: 'applied-no-answer' });
    await client.writeKey('havol', 'hab', 'lost-answer', Buffer.from('exactly once'));
    expect(cluster.om.outcomes.get('CommitKey OK')).toBe(committedBefore + 1);
    expect(cluster.om.outcomes.get('CommitKey KEY_NOT_FOUND')).toBe(refusedBefore + 1);
    expect(client.omStats.resendsTolerated).toBe(1);
    expect((await client.readKey('havol', 'hab', 'lost-answer')).toString()).toBe('exactly once');
  });

  it('a rename and a volume creation whose answers were lost, re-sent after a leader change', async () => {
    const client = haClient('grpc');
    await client.writeKey('havol', 'hab', 'from', Buffer.from('r'));
    cluster.om.injectFault({ command: 'RenameKey', times: 1, response: 'applied-no-answer' });
    cluster.om.injectFault({ command: 'CreateVolume', times: 1, response: 'applied-no-answer' });
    const rename = client.renameKey('havol', 'hab', 'from', 'to');
    // The leader changes while the answer is lost: the re-send goes through the hop.
    cluster.transferOmLeader('omNode-2');
    await rename;
    await client.createVolume('havol2');
    expect(client.omStats.resendsTolerated).toBe(2);
    expect((await client.readKey('havol', 'hab', 'to')).toString()).toBe('r');
    await expect(client.getKeyInfo('havol', 'hab', 'from')).rejects.toMatchObject({
      code: 'ERR_OZONE_KEY_NOT_FOUND',
    });
    expect((await client.getVolume('havol2')).name).toBe('havol2');
  });

  it('an "already exists" that is not its own re-send still fails', async () => {
    const client = haClient('grpc');
    await expect(client.createVolume('havol')).rejects.toMatchObject({
      code: 'ERR_OZONE_VOLUME_ALREADY_EXISTS',
    });
    expect(client.omStats.resendsTolerated).toBe(0);
  });
});

describe('ofs://<serviceId>/ and o3fs://bucket.volume.<serviceId>/', () => {
  it('resolve the service and fail over like the client', async () => {
    const properties = {
      ...cluster.omClientProperties,
      'ozone.client.wait.between.retries.millis': String(WAIT_MS),
    };
    const ofs = newFileSystemInstance('ofs://omservice/', { properties, userName: 'ha' });
    const o3fs = newFileSystemInstance('o3fs://hab.havol.omservice/', { properties, userName: 'ha' });
    try {
      const out = await ofs.create('/havol/hab/fs-file');
      await out.write(Buffer.from('via ofs'));
      await out.close();
      cluster.transferOmLeader('omNode-2');
      const input = await o3fs.open('/fs-file');
      const bytes = Buffer.alloc(7);
      await input.readFully(0, bytes);
      expect(bytes.toString()).toBe('via ofs');
      input.close();
      expect(o3fs.client.omLeader?.nodeId).toBe('omNode-2');
    } finally {
      ofs.close();
      o3fs.close();
    }
  });

  it("Ozone's error cases: a port on a service id, no authority while service ids are set", () => {
    expect(() =>
      newFileSystemInstance('ofs://omservice:9862/', { properties: cluster.omClientProperties }),
    ).toThrow(/logical \(HA\) OzoneManager service and does not use port information/);
    expect(() => newFileSystemInstance('ofs:///', { properties: cluster.omClientProperties })).toThrow(
      /Service ID or host name must not be omitted/,
    );
  });
});
