import { execFileSync } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';
import { useKdc } from '../src/jest.js';

// What native code sees: a child spawned without an env option inherits the real environment,
// not a jest test file's copy of process.env.
const realEnv = (name: string): string =>
  execFileSync('/bin/sh', ['-c', `printf %s "$${name}"`], { encoding: 'utf8' });

const before = realEnv('KRB5_CONFIG');

describe('useKdc', () => {
  const kdc = useKdc({ kdc: { realm: 'SUITE.TEST' }, processEnv: true });

  it('gives the suite a running realm and points this process at it', async () => {
    expect(kdc.realm).toBe('SUITE.TEST');
    expect(process.env['KRB5_CONFIG']).toBe(kdc.krb5ConfigPath);
    expect(realEnv('KRB5_CONFIG')).toBe(kdc.krb5ConfigPath);
    expect(realEnv('KRB5_KDC_PROFILE')).toBe(kdc.kdcConfigPath);
    expect(process.env['KRB5RCACHEDIR']).toBe(kdc.env()['KRB5RCACHEDIR']);
    const ccache = await kdc.kinit('client/host');
    expect(ccache.startsWith(kdc.dir)).toBe(true);
  });

  it('keeps the same realm for every test of the suite', async () => {
    // The principal made by the test above still exists.
    const keytab = await kdc.keytab(['client/host']);
    await kdc.kinit('client/host', { keytab });
  });
});

describe('after a useKdc suite', () => {
  it('the process environment is as before (the outer suite has not started one)', () => {
    expect(realEnv('KRB5_CONFIG')).toBe(before);
  });
});
