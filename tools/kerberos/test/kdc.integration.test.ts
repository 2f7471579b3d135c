import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { pollUntil, runProcess } from '@fastpath/jvm-fixture';
import { InvalidOptionError } from '@fastpath/core';
import { isAlive } from '@fastpath/test-support';
import { KdcStateError, KERBEROS_PROGRAMS, KerberosCommandError, startKdc, type Kdc } from '../src/index.js';

async function rejection<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(type);
    return err as E;
  }
  throw new Error(`expected a ${type.name}, but the call succeeded`);
}

// klist -s: exit 0 while the cache holds a valid (unexpired) TGT, 1 otherwise.
async function hasValidTicket(kdc: Kdc, ccache: string): Promise<boolean> {
  const result = await runProcess(KERBEROS_PROGRAMS.klist.file, ['-s', '-c', `FILE:${ccache}`], {
    env: { ...process.env, ...kdc.env() },
  });
  return result.code === 0;
}

async function klist(kdc: Kdc, ccache: string): Promise<string> {
  const result = await runProcess(KERBEROS_PROGRAMS.klist.file, ['-c', `FILE:${ccache}`], {
    env: { ...process.env, ...kdc.env() },
  });
  return result.stdout;
}

// A service ticket for HTTP/localhost, asked of the KDC with the TGT in the cache.
async function kvno(
  kdc: Kdc,
  ccache: string,
  service: string,
): Promise<{ code: number | null; output: string }> {
  const result = await runProcess('/usr/bin/kvno', ['-c', `FILE:${ccache}`, service], {
    env: { ...process.env, ...kdc.env() },
  });
  return { code: result.code, output: `${result.stdout}${result.stderr}` };
}

describe('startKdc', () => {
  it('runs a realm whose users get tickets from a keytab and from a password', async () => {
    await using kdc = await startKdc({ realm: 'FASTPATH.TEST' });
    expect(kdc.realm).toBe('FASTPATH.TEST');
    expect(await readFile(kdc.krb5ConfigPath, 'utf8')).toContain(`kdc = 127.0.0.1:${kdc.port}`);
    expect(kdc.env()['KRB5_CONFIG']).toBe(kdc.krb5ConfigPath);
    expect(kdc.javaOptions()).toEqual([`-Djava.security.krb5.conf=${kdc.krb5ConfigPath}`]);

    expect(await kdc.addPrincipal('alice', { password: 'alice-secret' })).toBe('alice@FASTPATH.TEST');
    const fromPassword = await kdc.kinit('alice', { password: 'alice-secret' });
    expect(await klist(kdc, fromPassword)).toContain('Default principal: alice@FASTPATH.TEST');

    const keytab = await kdc.keytab(['HTTP/localhost', 'client', 'client/host']);
    const fromKeytab = await kdc.kinit('client/host', { keytab });
    expect(await klist(kdc, fromKeytab)).toContain('Default principal: client/host@FASTPATH.TEST');
    // The service principal is real: the KDC issues a ticket for it, with the keytab's key version.
    const service = await kvno(kdc, fromKeytab, 'HTTP/localhost@FASTPATH.TEST');
    expect(service).toEqual({
      code: 0,
      output: expect.stringContaining('HTTP/localhost@FASTPATH.TEST: kvno = 1'),
    });
    // Exporting again keeps the keys: the password and the first keytab still work.
    await kdc.keytab(['alice', 'client']);
    await kdc.kinit('alice', { password: 'alice-secret' });
    await kdc.kinit('client', { keytab });
  });

  it('answers on UDP and on TCP of its port', async () => {
    await using kdc = await startKdc();
    const keytab = await kdc.keytab(['client']);
    const conf = await readFile(kdc.krb5ConfigPath, 'utf8');
    // The realm's own krb5.conf sends over TCP first (udp_preference_limit = 1); MIT's default
    // (1465 bytes) sends a small request over UDP first. libkrb5's trace names the transport
    // that answered: a stream (TCP) or a dgram (UDP).
    for (const [limit, transport] of [
      ['1', 'stream'],
      ['1465', 'dgram'],
    ] as const) {
      const variant = `${kdc.krb5ConfigPath}.${limit}`;
      const trace = `${kdc.dir}/trace-${limit}.log`;
      await writeFile(variant, conf.replace('udp_preference_limit = 1', `udp_preference_limit = ${limit}`));
      const result = await runProcess(
        KERBEROS_PROGRAMS.kinit.file,
        ['-k', '-t', keytab, '-c', `FILE:${kdc.dir}/ccache/${limit}`, 'client'],
        { env: { ...process.env, ...kdc.env(), KRB5_CONFIG: variant, KRB5_TRACE: trace } },
      );
      expect(result.code).toBe(0);
      expect(await readFile(trace, 'utf8')).toContain(`Received answer (`);
      expect(await readFile(trace, 'utf8')).toMatch(
        new RegExp(`Received answer \\(\\d+ bytes\\) from ${transport} 127\\.0\\.0\\.1:${kdc.port}\\b`),
      );
    }
  });

  it('refuses a wrong password and a duplicate principal with typed errors', async () => {
    await using kdc = await startKdc();
    await kdc.addPrincipal('bob', { password: 'right' });
    await rejection(kdc.kinit('bob', { password: 'wrong' }), KerberosCommandError);
    const duplicate = await rejection(kdc.addPrincipal('bob'), KerberosCommandError);
    expect(duplicate.message).toMatch(/already exists/);
    // The password reached kadmin.local and kinit on stdin, never on a command line or in an error.
    const refused = await rejection(kdc.kinit('bob', { password: 'wrong' }), KerberosCommandError);
    expect(refused.message).not.toContain('wrong');
    await rejection(kdc.kinit('bad name'), InvalidOptionError);
  });

  it('issues a short ticket that expires: klist and the KDC both refuse it afterwards', async () => {
    await using kdc = await startKdc();
    const ccache = await kdc.kinit('short', { lifetimeSeconds: 2 });
    expect(await hasValidTicket(kdc, ccache)).toBe(true);
    await kdc.keytab(['HTTP/localhost']);
    expect((await kvno(kdc, ccache, 'HTTP/localhost')).code).toBe(0);
    const expired = await pollUntil(async () => ((await hasValidTicket(kdc, ccache)) ? undefined : true), {
      timeoutMs: 30_000,
      intervalMs: 250,
    });
    expect(expired).toBe(true);
    // The KDC allows clockSkewSeconds (1 s) past the end, then refuses the TGT.
    const refused = await pollUntil(
      async () => {
        const answer = await kvno(kdc, ccache, `HTTP/localhost@${kdc.realm}`);
        return answer.code === 0 ? undefined : answer.output;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(refused).toMatch(/expired/i);
  });

  it('leaves nothing behind: the KDC process is gone and its folder deleted', async () => {
    const kdc = await startKdc();
    await kdc.kinit('someone');
    expect(isAlive(kdc.pid)).toBe(true);
    expect(existsSync(kdc.dir)).toBe(true);
    await kdc.stop();
    expect(isAlive(kdc.pid)).toBe(false);
    expect(existsSync(kdc.dir)).toBe(false);
    await kdc.stop(); // idempotent
    await rejection(kdc.addPrincipal('late'), KdcStateError);
  });

  it('checks its options before it starts anything', async () => {
    await rejection(startKdc({ realm: 'lower.case' }), InvalidOptionError);
    await rejection(startKdc({ clockSkewSeconds: -1 }), InvalidOptionError);
  });
});
