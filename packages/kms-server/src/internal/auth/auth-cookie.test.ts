import { expect } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { ManualClock, Redacted } from '@fastpath/core';
import { AuthCookie, cookieDate, findCookie, KERBEROS_AUTH_TYPE } from './auth-cookie.js';
import { SignerSecrets } from './signer-secrets.js';

const secret = new Redacted(Buffer.from('shared-secret'));
const fixed = SignerSecrets.fixed(secret);
const hmac = (text: string, key = 'shared-secret'): string =>
  createHmac('sha256', key).update(text, 'utf8').digest('base64');

describe('AuthCookie', () => {
  it("signs Hadoop's cookie format with HMAC-SHA256 (standard base64) and verifies it", () => {
    const clock = new ManualClock(1_000_000);
    const cookies = new AuthCookie({ secrets: fixed, validityMs: 60_000, clock });
    const signed = cookies.sign('alice');
    // Hadoop's KMS writes the type of its delegation-token-aware pseudo handler, simple-dt.
    const text = 'u=alice&p=alice&t=simple-dt&e=1060000';
    expect(signed?.value).toBe(`${text}&s=${hmac(text)}`);
    // No Path, Domain or Expires unless configured, as Hadoop's KMS writes it; always HttpOnly.
    expect(cookies.setCookieHeader(signed!, { secure: true })).toBe(
      `hadoop.auth="${text}&s=${hmac(text)}"; Secure; HttpOnly`,
    );
    expect(cookies.verify(`other=1; hadoop.auth="${signed?.value}"`)).toEqual({
      user: 'alice',
      principal: 'alice',
    });
    expect(cookies.verify(`hadoop.auth=${signed?.value}`)).toEqual({ user: 'alice', principal: 'alice' });
    // A server with the same secret accepts it; one with another secret does not.
    expect(
      new AuthCookie({ secrets: fixed, validityMs: 1, clock }).verify(`hadoop.auth=${signed?.value}`),
    ).toEqual({
      user: 'alice',
      principal: 'alice',
    });
    const other = new AuthCookie({
      secrets: SignerSecrets.fixed(new Redacted(Buffer.from('x'))),
      validityMs: 1,
      clock,
    });
    expect(other.verify(`hadoop.auth=${signed?.value}`)).toEqual({
      error: 'org.apache.hadoop.security.authentication.util.SignerException: Invalid signature',
    });
    clock.advance(60_000);
    expect(cookies.verify(`hadoop.auth=${signed?.value}`)).toEqual({ user: 'alice', principal: 'alice' });
    clock.advance(1);
    expect(cookies.verify(`hadoop.auth=${signed?.value}`)).toEqual({ error: 'AuthenticationToken expired' });
  });

  it('writes kerberos-dt cookies with the short name in u and the full principal in p, as Hadoop signs them', () => {
    const clock = new ManualClock(5_000);
    const cookies = new AuthCookie({
      secrets: fixed,
      validityMs: 36_000_000,
      type: KERBEROS_AUTH_TYPE,
      clock,
    });
    const signed = cookies.sign('client', 'client/host@EXAMPLE.COM');
    const text = 'u=client&p=client/host@EXAMPLE.COM&t=kerberos-dt&e=36005000';
    expect(signed).toEqual({ value: `${text}&s=${hmac(text)}`, expiresMs: 36_005_000 });
    expect(cookies.verify(`hadoop.auth="${text}&s=${hmac(text)}"`)).toEqual({
      user: 'client',
      principal: 'client/host@EXAMPLE.COM',
    });
    // A cookie Hadoop's KMS signed with the same secret, written by hand from the format.
    const hadoops = 'u=hdfs&p=hdfs@EXAMPLE.COM&t=kerberos-dt&e=99999999';
    expect(cookies.verify(`hadoop.auth="${hadoops}&s=${hmac(hadoops)}"`)).toEqual({
      user: 'hdfs',
      principal: 'hdfs@EXAMPLE.COM',
    });
  });

  it('Kerberos mode accepts its own type only; simple mode accepts simple-dt and the older simple', () => {
    const clock = new ManualClock(0);
    const signedAs = (type: string): string => {
      const text = `u=alice&p=alice&t=${type}&e=60000`;
      return `hadoop.auth="${text}&s=${hmac(text)}"`;
    };
    const simple = new AuthCookie({ secrets: fixed, validityMs: 60_000, clock });
    expect(simple.verify(signedAs('simple-dt'))).toEqual({ user: 'alice', principal: 'alice' });
    expect(simple.verify(signedAs('simple'))).toEqual({ user: 'alice', principal: 'alice' });
    for (const type of ['kerberos-dt', 'kerberos', 'simple-DT', 'simple-dt ', '']) {
      expect(simple.verify(signedAs(type))).toEqual({ error: 'Invalid AuthenticationToken type' });
    }
    const kerberos = new AuthCookie({ secrets: fixed, validityMs: 60_000, type: KERBEROS_AUTH_TYPE, clock });
    expect(kerberos.verify(signedAs('kerberos-dt'))).toEqual({ user: 'alice', principal: 'alice' });
    for (const type of ['kerberos', 'simple-dt', 'simple']) {
      expect(kerberos.verify(signedAs(type))).toEqual({ error: 'Invalid AuthenticationToken type' });
    }
  });

  it('carries i= with a max-inactive interval, expires on inactivity, and renews with the same e=', () => {
    const clock = new ManualClock(1_000);
    const cookies = new AuthCookie({ secrets: fixed, validityMs: 60_000, maxInactiveMs: 5_000, clock });
    expect(cookies.renewsOnUse).toBe(true);
    const first = cookies.sign('alice')!;
    const text = 'u=alice&p=alice&t=simple-dt&i=6000&e=61000';
    expect(first.value).toBe(`${text}&s=${hmac(text)}`);
    clock.advance(4_000);
    const seen = cookies.verifyDetailed(`hadoop.auth=${first.value}`);
    expect(seen).toEqual({ user: 'alice', principal: 'alice', expiresMs: 61_000 });
    const renewed = cookies.sign('alice', 'alice', 61_000)!;
    expect(renewed.value.startsWith('u=alice&p=alice&t=simple-dt&i=10000&e=61000&s=')).toBe(true);
    clock.advance(2_000);
    expect(cookies.verify(`hadoop.auth=${first.value}`)).toEqual({ error: 'AuthenticationToken expired' });
    expect(cookies.verify(`hadoop.auth=${renewed.value}`)).toEqual({ user: 'alice', principal: 'alice' });
    expect(new AuthCookie({ secrets: fixed, validityMs: 1 }).renewsOnUse).toBe(false);
  });

  it("writes Path, Domain and a persistent Expires in Hadoop's date format when configured", () => {
    const clock = new ManualClock(0);
    const cookies = new AuthCookie({
      secrets: fixed,
      validityMs: 1_000,
      path: '/',
      domain: 'example.com',
      persistent: true,
      clock,
    });
    const signed = cookies.sign('alice')!;
    expect(cookies.setCookieHeader(signed, { secure: false })).toBe(
      `hadoop.auth="${signed.value}"; Path=/; Domain=example.com; Expires=Thu, 01-Jan-1970 00:00:01 GMT; HttpOnly`,
    );
    expect(cookies.clearCookieHeader({ secure: true })).toBe(
      'hadoop.auth=; Path=/; Domain=example.com; Secure; HttpOnly',
    );
    expect(cookieDate(new Date(Date.UTC(2026, 11, 2, 3, 4, 5)))).toBe('Wed, 02-Dec-2026 03:04:05 GMT');
  });

  it('refuses tampered and malformed cookies, and names that cannot be carried', () => {
    const clock = new ManualClock(0);
    const cookies = new AuthCookie({ secrets: fixed, validityMs: 60_000, clock });
    const value = cookies.sign('alice')!.value;
    expect(cookies.verify(`hadoop.auth=${value.replace('u=alice', 'u=admin')}`)).toEqual({
      error: 'org.apache.hadoop.security.authentication.util.SignerException: Invalid signature',
    });
    expect(cookies.verify('hadoop.auth=garbage')).toEqual({
      error: 'org.apache.hadoop.security.authentication.util.SignerException: Invalid signed text',
    });
    const noExpiry = 'u=alice&p=alice&t=simple-dt';
    expect(cookies.verify(`hadoop.auth=${noExpiry}&s=${hmac(noExpiry)}`)).toEqual({
      error: 'Invalid AuthenticationToken, it must have u, p, t and e attributes',
    });
    expect(cookies.verify('hadoop.auth=')).toBeUndefined();
    expect(cookies.verify(undefined)).toBeUndefined();
    expect(cookies.sign('a&u=admin')).toBeUndefined();
    expect(cookies.sign('a=b')).toBeUndefined();
    expect(cookies.sign('client', 'client@R&u=x')).toBeUndefined();
    expect(cookies.clearCookieHeader({ secure: false })).toBe('hadoop.auth=; HttpOnly');
    expect(findCookie('a=1; b="2"', 'b')).toBe('2');
  });
});

describe('SignerSecrets', () => {
  it('signs with the current random secret and verifies with the current and the previous one', () => {
    const clock = new ManualClock(0);
    const secrets = SignerSecrets.random({ rolloverMs: 1_000, clock });
    const cookies = new AuthCookie({ secrets, validityMs: 10_000, clock });
    const first = cookies.sign('alice')!.value;
    expect(secrets.all()).toHaveLength(1);
    clock.advance(1_000); // rolled once: the first secret is the previous one
    expect(secrets.all()).toHaveLength(2);
    expect(cookies.verify(`hadoop.auth=${first}`)).toEqual({ user: 'alice', principal: 'alice' });
    const second = cookies.sign('alice')!.value;
    expect(second).not.toBe(first);
    clock.advance(1_000); // rolled twice: the first secret is gone
    expect(cookies.verify(`hadoop.auth=${first}`)).toEqual({
      error: 'org.apache.hadoop.security.authentication.util.SignerException: Invalid signature',
    });
    expect(cookies.verify(`hadoop.auth=${second}`)).toEqual({ user: 'alice', principal: 'alice' });
    clock.advance(5_000); // idle for several intervals: nothing older than the current secret verifies
    expect(cookies.verify(`hadoop.auth=${second}`)).toEqual({
      error: 'org.apache.hadoop.security.authentication.util.SignerException: Invalid signature',
    });
    expect(secrets.all()).toHaveLength(1);
  });

  it('never rolls a configured secret', () => {
    expect(fixed.all()).toEqual([secret]);
    expect(fixed.current()).toBe(secret);
  });
});
