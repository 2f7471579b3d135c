// Delegation tokens with OM HA on a secure embedded cluster (three OMs, TOKEN and KERBEROS on their
// Hadoop RPC ports, a real MIT KDC): a token got through the service id names every OM (their
// `ip:port`s sorted and joined, as Ozone's Java client sets it), so a process holding only that
// token reaches whichever OM leads, before and after a leader change; renewal and cancellation go
// to the leader through the service id too, and a cancelled token is refused by every OM.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Credentials, type Token } from '@fastpath/hadoop-common';
import { RemoteException } from '@fastpath/hadoop-rpc';
import { useKdc } from '@fastpath/kerberos-fixture/jest';
import { createOzoneClient, type OzoneClient, type OzoneSecurityOptions } from '@fastpath/ozone-fs-client';
import { type MiniOzoneCluster, startMiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { secureOmProperties, ticketCaches } from './support/secure-om-login.js';

jest.setTimeout(120_000);

const kdc = useKdc({ processEnv: true });
let cluster: MiniOzoneCluster;
let dir: string;
const clients: OzoneClient[] = [];

function client(security: OzoneSecurityOptions): OzoneClient {
  const c = createOzoneClient({
    omAddress: cluster.omServiceId as string,
    properties: {
      ...cluster.omClientProperties,
      ...secureOmProperties(kdc.realm),
      // A failover goes to the next OM at once: the test's leader changes are immediate.
      'ozone.client.wait.between.retries.millis': '50',
    },
    omTimeoutMs: 10_000,
    security,
  });
  clients.push(c);
  return c;
}

const { asUser, noTicket } = ticketCaches(kdc, () => dir);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'secure-om-ha-'));
  const principal = kdc.principal('om/localhost');
  cluster = await startMiniOzoneCluster({
    omHa: 3,
    security: {
      kerberos: { principal, keytab: await kdc.keytab([principal]) },
      protection: ['privacy'],
      blockTokens: true,
    },
  });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

it('a token of the service serves a token-only process through leader changes; cancelled, every OM refuses it', async () => {
  await asUser('alice');
  const alice = client({ kerberos: true });
  await alice.createVolume('havol');
  await alice.createBucket('havol', 'bkt');
  await alice.writeKey('havol', 'bkt', 'first', Buffer.from('before the leader change'));

  const token = (await alice.getDelegationToken('alice')) as Token;
  // Every OM of the service, as Java's client names the token's service.
  const addresses = cluster.omNodes.map((n) => n.rpcAddress).sort();
  expect(token.service).toBe(addresses.join(','));

  const file = join(dir, 'tokens');
  await new Credentials({ tokens: new Map([[token.service, token]]) }).writeFile(file);
  await noTicket();
  const task = client({ credentials: await Credentials.readFile(file) });
  expect((await task.readKey('havol', 'bkt', 'first')).toString()).toBe('before the leader change');

  // Each other OM leads in turn; the token-only client follows and writes through each.
  const leaders: string[] = [];
  for (const next of cluster.omNodes.map((n) => n.nodeId).filter((id) => id !== cluster.omLeader)) {
    cluster.transferOmLeader(next);
    await task.writeKey('havol', 'bkt', `under-${next}`, Buffer.from(`written while ${next} led`));
    expect((await task.readKey('havol', 'bkt', `under-${next}`)).toString()).toBe(
      `written while ${next} led`,
    );
    leaders.push(task.omLeader?.nodeId ?? '');
  }
  expect(leaders).toEqual(cluster.omNodes.map((n) => n.nodeId).filter((id) => id !== 'omNode-1'));

  // Renewed and cancelled through the service id, at whichever OM leads now.
  await asUser('alice');
  expect(await alice.renewDelegationToken(token)).toBeGreaterThan(Date.now());
  await alice.cancelDelegationToken(token);

  // Refused by every OM, not only the leader: a client of each single OM holding the token.
  await noTicket();
  const credentials = await Credentials.readFile(file);
  for (const node of cluster.omNodes) {
    const single = createOzoneClient({
      properties: {
        'ozone.om.address': node.rpcAddress,
        ...secureOmProperties(kdc.realm),
      },
      omTimeoutMs: 10_000,
      security: { credentials },
    });
    clients.push(single);
    const refused = await single.getKeyInfo('havol', 'bkt', 'first').then(
      () => 'served',
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(RemoteException);
    expect((refused as RemoteException).errorDetail).toBe('FATAL_UNAUTHORIZED');
  }
});
