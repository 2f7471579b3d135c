// A long-running client logged in from a keytab outlives its tickets: in a realm whose tickets
// last 4 s, a connection opened after the ticket ended logs in again from the keytab (a second
// AS exchange in the KDC's log) instead of failing with an expired ticket, against Apache
// Hadoop's own RPC.Server. With only a ticket cache the same wait ends in 'expired-ticket'.
import { readFile } from 'node:fs/promises';
import { setNativeEnvironment } from '@fastpath/kerberos-fixture';
import { useKdc } from '@fastpath/kerberos-fixture/jest';
import { startHadoopRpcPeer } from '@fastpath/hadoop-fixture';
import {
  createHadoopRpcClient,
  createKerberosSaslMechanism,
  HadoopRpcKerberosError,
} from '@fastpath/hadoop-rpc';
import { TEST_RPC_PROTOCOL, testRpcMessages as m } from '@fastpath/hadoop-rpc/testing';

const TICKET_SECONDS = 4;
const kdc = useKdc({ processEnv: true, kdc: { maxTicketLifetimeSeconds: TICKET_SECONDS } });
const empty = new Uint8Array(0);
const pastTicketEnd = () => new Promise((resolve) => setTimeout(resolve, (TICKET_SECONDS + 2) * 1000));

it('logs in again from the keytab once its ticket has ended; a ticket cache alone expires', async () => {
  const server = kdc.principal('hrpc/localhost');
  await using peer = await startHadoopRpcPeer({
    kerberos: {
      protection: 'privacy',
      principal: server,
      keytab: await kdc.keytab([server]),
      javaOptions: kdc.javaOptions(),
    },
  });
  await setNativeEnvironment({ KRB5CCNAME: `FILE:${kdc.dir}/no-such-cache` });
  const mechanism = createKerberosSaslMechanism({
    serverPrincipal: `hrpc/_HOST@${kdc.realm}`,
    keytab: await kdc.keytab([kdc.principal('dave')]),
    protection: ['privacy'],
  });
  const asRequests = async () =>
    (await readFile(kdc.logFile, 'utf8'))
      .split('\n')
      .filter((l) => l.includes('AS_REQ') && l.includes('dave@')).length;
  const whoAmI = async () => {
    // A client per call: each opens its own connection, so each logs in.
    await using client = createHadoopRpcClient({ authProtocol: 'sasl', saslMechanisms: [mechanism] });
    return m.UserResponseProto.decode(
      await client.call({
        address: peer.address,
        ...TEST_RPC_PROTOCOL,
        method: 'getAuthUser',
        request: empty,
      }),
    ).user;
  };
  expect(await whoAmI()).toBe(kdc.principal('dave'));
  expect(await asRequests()).toBe(1);
  await pastTicketEnd();
  expect(await whoAmI()).toBe(kdc.principal('dave'));
  expect(await asRequests()).toBe(2);

  // The same wait with a ticket cache from kinit and no keytab.
  await setNativeEnvironment({ KRB5CCNAME: await kdc.kinit('erin') });
  await using cached = createHadoopRpcClient({
    authProtocol: 'sasl',
    saslMechanisms: [
      createKerberosSaslMechanism({ serverPrincipal: `hrpc/_HOST@${kdc.realm}`, protection: ['privacy'] }),
    ],
    // A fresh connection for the second call: the idle one is closed at once.
    maxIdleTimeMs: 1,
  });
  const ping = () =>
    cached.call({ address: peer.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty });
  await ping();
  await pastTicketEnd();
  const error = await ping().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HadoopRpcKerberosError);
  expect(error).toMatchObject({ reason: 'expired-ticket' });
}, 180_000);
