// TLS to the group's members, as an Ozone datanode's Ratis port serves it when
// `hdds.grpc.tls.enabled`: the server shows a certificate of the cluster's CA, the client none.
// What a client that trusts the CA gets, and the refusals of one that does not (typed, at once).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestCertificateAuthority, type TestCertificateAuthority } from '@fastpath/test-support';
import {
  createRaftClient,
  RAFT_GRPC_TRANSPORTS,
  type RaftClient,
  type RaftClientOptions,
  type RaftGrpcTransport,
} from '@fastpath/ratis-client';
import { type EmbeddedRaftGroup, startEmbeddedRaftGroup } from '@fastpath/ratis-client/testing';

let ca: TestCertificateAuthority;
let otherCa: TestCertificateAuthority;
const open: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  ca = await createTestCertificateAuthority('cluster CA');
  otherCa = await createTestCertificateAuthority('another CA');
});
afterAll(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
  await ca?.dispose();
  await otherCa?.dispose();
});

async function tlsGroup(names: readonly string[]): Promise<EmbeddedRaftGroup> {
  const g = await startEmbeddedRaftGroup({ tls: await ca.issue(names) });
  open.push(g);
  return g;
}

/** The session the cases' clients take (each describe below sets it). */
let transport: RaftGrpcTransport = 'http2';

function client(g: EmbeddedRaftGroup, options: Partial<RaftClientOptions>): RaftClient {
  // Short bounds: a refusal that were retried would run into them rather than fail at once.
  const c = createRaftClient({
    groupId: g.groupId,
    peers: g.peers,
    retryPauseMs: 20,
    writeTimeoutMs: 60_000,
    transport,
    ...options,
  });
  open.push(c);
  return c;
}

describe.each(RAFT_GRPC_TRANSPORTS)('Ratis over TLS, streams on the %s session', (session) => {
  beforeAll(() => {
    transport = session;
  });

  it('writes and reads through every member with the CA trusted and the address in the certificate', async () => {
    const g = await tlsGroup(['127.0.0.1']);
    const c = client(g, { tls: { ca: ca.caCert } });
    const reply = await c.send(Buffer.from('over tls'));
    expect(reply.logIndex).toBeGreaterThan(0);
    await expect(c.sendReadOnly(Buffer.alloc(0))).resolves.toBeDefined();
    expect(g.received.length).toBeGreaterThanOrEqual(2);
  });

  it('checks the certificate against serverNameOverride when it names the member, not its address', async () => {
    const g = await tlsGroup(['datanode.cluster.example.com']);
    const c = client(g, { tls: { ca: [ca.caCert], serverNameOverride: 'datanode.cluster.example.com' } });
    await expect(c.send(Buffer.from('by name'))).resolves.toMatchObject({ logIndex: expect.any(Number) });
  });

  it('a certificate of another CA: ERR_RATIS_TLS at once, nothing applied', async () => {
    const g = await tlsGroup(['127.0.0.1']);
    const c = client(g, { tls: { ca: otherCa.caCert } });
    const started = Date.now();
    const error = await c.send(Buffer.from('refused')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_RATIS_TLS', retriable: false });
    expect((error as Error).message).toMatch(/certificate/i);
    // Not retried through the members until the write timeout (60 s here).
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(g.received).toHaveLength(0);
  });

  it('a certificate without the name checked: ERR_RATIS_TLS naming the mismatch', async () => {
    const g = await tlsGroup(['localhost']);
    const c = client(g, { tls: { ca: ca.caCert } });
    const error = await c.send(Buffer.from('wrong name')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_RATIS_TLS', cause: { code: 'ERR_TLS_CERT_ALTNAME_INVALID' } });
    expect(g.received).toHaveLength(0);
  });

  it('a TLS client to a plaintext member: ERR_RATIS_TLS, not a hang', async () => {
    const g = await startEmbeddedRaftGroup({ peers: 1 });
    open.push(g);
    const c = client(g, { tls: { ca: ca.caCert } });
    await expect(c.send(Buffer.from('x'))).rejects.toMatchObject({ code: 'ERR_RATIS_TLS' });
    expect(g.received).toHaveLength(0);
  });

  it('a plaintext client to a TLS member is not served (and retries, as for a member that is down)', async () => {
    const g = await tlsGroup(['127.0.0.1']);
    const c = client(g, { writeTimeoutMs: 1500, rpcRequestTimeoutMs: 500 });
    await expect(c.send(Buffer.from('plain'))).rejects.toMatchObject({ code: 'ERR_RATIS_TIMEOUT' });
    expect(g.received).toHaveLength(0);
  });

  it('refuses a tls option without CA certificates, naming it', () => {
    expect(() =>
      createRaftClient({
        groupId: '00112233-4455-4677-8899-aabbccddeeff',
        peers: [{ id: 'p0', address: '127.0.0.1:1' }],
        tls: { ca: '' },
      }),
    ).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', message: expect.stringContaining('tls.ca') }),
    );
  });
});
