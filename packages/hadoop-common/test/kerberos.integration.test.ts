import { afterAll, describe, expect, it } from '@jest/globals';
import { setNativeEnvironment } from '@fastpath/kerberos-fixture';
import { useKdc } from '@fastpath/kerberos-fixture/jest';
import { isPending, waitFor } from '@fastpath/test-support';
import { loadKerberos, type KerberosModule } from '../src/index.js';

// The optional `kerberos` package, built here from source against Debian's libkrb5-dev, speaking
// GSS-API with a real MIT KDC: the client initiates from a ticket cache, the server accepts with
// a keytab for HTTP/localhost, as Hadoop's SPNEGO exchange does.
const kdc = useKdc({ processEnv: true });
afterAll(() => setNativeEnvironment({ KRB5_KTNAME: undefined, KRB5CCNAME: undefined }));

async function setUp(client: string): Promise<KerberosModule> {
  const kerberos = await loadKerberos();
  // libkrb5 reads the acceptor's keytab and the initiator's cache from the process environment.
  await setNativeEnvironment({
    KRB5_KTNAME: `FILE:${await kdc.keytab(['HTTP/localhost'])}`,
    KRB5CCNAME: `FILE:${await kdc.kinit(client, { lifetimeSeconds: 600 })}`,
  });
  return kerberos;
}

describe('the kerberos package', () => {
  it('loads, once per process', async () => {
    const kerberos = await loadKerberos();
    expect(kerberos.version).toBe('7.0.0');
    expect(await loadKerberos()).toBe(kerberos);
  });

  it.each([
    ['raw Kerberos (as Hadoop’s client)', 'GSS_MECH_OID_KRB5'],
    ['SPNEGO', 'GSS_MECH_OID_SPNEGO'],
  ] as const)('completes a mutually authenticated exchange with %s', async (_label, mech) => {
    const kerberos = await setUp('client/host');
    const client = await kerberos.initializeClient('HTTP@localhost', {
      mechOID: kerberos[mech],
      gssFlag: kerberos.GSS_C_MUTUAL_FLAG,
    });
    const token = await client.step('');
    expect(token).toMatch(/^[A-Za-z0-9+/]+=*$/);

    const server = await kerberos.initializeServer('HTTP@localhost');
    const reply = await server.step(token);
    expect(server.contextComplete).toBe(true);
    expect(server.username).toBe(`client/host@${kdc.realm}`);
    // Mutual authentication: the acceptor answers an AP-REP that completes the client's context.
    expect(reply).not.toBe('');
    expect(client.contextComplete).toBe(false);
    await client.step(reply);
    expect(client.contextComplete).toBe(true);
  });

  it('tells the acceptor which service principal the client aimed at when it accepts any key', async () => {
    const kerberos = await setUp('client');
    const client = await kerberos.initializeClient('HTTP@localhost', { mechOID: kerberos.GSS_MECH_OID_KRB5 });
    const server = await kerberos.initializeServer('');
    await server.step(await client.step(''));
    expect(server.username).toBe(`client@${kdc.realm}`);
    expect(server.targetName).toBe(`HTTP/localhost@${kdc.realm}`);
  });

  it('refuses a token for a service whose key the acceptor does not have', async () => {
    const kerberos = await setUp('client');
    await kdc.keytab(['HTTP/otherhost']); // exists in the realm, not in the acceptor's keytab
    const client = await kerberos.initializeClient('HTTP@otherhost', { mechOID: kerberos.GSS_MECH_OID_KRB5 });
    const token = await client.step('');
    const server = await kerberos.initializeServer('HTTP@localhost');
    await expect(server.step(token)).rejects.toThrow();
    expect(server.contextComplete).toBe(false);
  });

  it('runs a GSS step off the event loop: timers fire while the step waits on a stopped KDC', async () => {
    const kerberos = await setUp('client');
    // A fresh ticket cache holds only the TGT, so the client's first step must ask the KDC for a
    // service ticket: with the KDC stopped (SIGSTOP) that request waits in libuv's thread pool.
    const client = await kerberos.initializeClient('HTTP@localhost', { mechOID: kerberos.GSS_MECH_OID_KRB5 });
    process.kill(kdc.pid, 'SIGSTOP');
    let step: Promise<string> | undefined;
    try {
      step = client.step('');
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      try {
        await waitFor('timer ticks during the step', () => ticks >= 10, { timeoutMs: 10_000 });
      } finally {
        clearInterval(timer);
      }
      expect(await isPending(step)).toBe(true);
    } finally {
      process.kill(kdc.pid, 'SIGCONT');
    }
    const token = await step;
    const server = await kerberos.initializeServer('HTTP@localhost');
    await server.step(token);
    expect(server.username).toBe(`client@${kdc.realm}`);
  });
});
