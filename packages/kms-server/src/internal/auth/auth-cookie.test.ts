import { expect } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { ManualClock, Redacted } from '@fastpath/core';
import { AuthCookie, findCookie } from './auth-cookie.js';

const secret = new Redacted(Buffer.from('shared-secret'));

describe('AuthCookie', () => {
  it("signs Hadoop's cookie format with HMAC-SHA256 (standard base64) and verifies it", () => {
    const clock = new ManualClock(1_000_000);
    const cookies = new AuthCookie(secret, 60_000, { clock });
    const signed = cookies.sign('alice');
    expect(signed).toBeDefined();
    // Hadoop's KMS writes the type of its delegation-token-aware pseudo handler, simple-dt.
    const text = 'u=alice&p=alice&t=simple-dt&e=1060000';
    const sig = createHmac('sha256', 'shared-secret').update(text).digest('base64');
    expect(signed?.value).toBe(`${text}&s=${sig}`);
    const header = cookies.setCookieHeader(signed as { value: string; expiresMs: number }, { secure: true });
    expect(header).toBe(
      `hadoop.auth="${text}&s=${sig}"; Path=/; Expires=${new Date(1_060_000).toUTCString()}; Secure; HttpOnly`,
    );
    expect(cookies.verify(`other=1; hadoop.auth="${signed?.value}"`)).toEqual({ user: 'alice' });
    expect(cookies.verify(`hadoop.auth=${signed?.value}`)).toEqual({ user: 'alice' });
    // A server with the same secret accepts it; one with another secret does not.
    expect(new AuthCookie(secret, 1, { clock }).verify(`hadoop.auth=${signed?.value}`)).toEqual({
      user: 'alice',
    });
    expect(
      new AuthCookie(new Redacted(Buffer.from('x')), 1, { clock }).verify(`hadoop.auth=${signed?.value}`),
    ).toEqual({
      error: expect.stringContaining('Invalid signature'),
    });
    clock.advance(60_001);
    expect(cookies.verify(`hadoop.auth=${signed?.value}`)).toEqual({ error: 'AuthenticationToken expired' });
  });

  it('accepts the types simple-dt (Hadoop, and this server) and simple (this server before), no other', () => {
    const clock = new ManualClock(0);
    const cookies = new AuthCookie(secret, 60_000, { clock });
    const signedAs = (type: string): string => {
      const text = `u=alice&p=alice&t=${type}&e=60000`;
      return `hadoop.auth="${text}&s=${createHmac('sha256', 'shared-secret').update(text).digest('base64')}"`;
    };
    expect(cookies.verify(signedAs('simple-dt'))).toEqual({ user: 'alice' });
    expect(cookies.verify(signedAs('simple'))).toEqual({ user: 'alice' });
    for (const type of ['kerberos-dt', 'simple-DT', 'simple-dt ', '']) {
      expect(cookies.verify(signedAs(type))).toEqual({ error: 'Invalid AuthenticationToken type' });
    }
  });

  it('refuses tampered, foreign-type and malformed cookies, and names that cannot be carried', () => {
    const clock = new ManualClock(0);
    const cookies = new AuthCookie(secret, 60_000, { clock });
    const value = cookies.sign('alice')?.value as string;
    expect(cookies.verify(`hadoop.auth=${value.replace('u=alice', 'u=admin')}`)).toEqual({
      error: expect.stringContaining('Invalid signature'),
    });
    const kerberos = 'u=alice&p=alice@R&t=kerberos&e=60000';
    const sig = createHmac('sha256', 'shared-secret').update(kerberos).digest('base64');
    expect(cookies.verify(`hadoop.auth=${kerberos}&s=${sig}`)).toEqual({
      error: 'Invalid AuthenticationToken type',
    });
    expect(cookies.verify('hadoop.auth=garbage')).toEqual({
      error: expect.stringContaining('Invalid signed text'),
    });
    expect(cookies.verify('hadoop.auth=')).toBeUndefined();
    expect(cookies.verify(undefined)).toBeUndefined();
    expect(cookies.sign('a&u=admin')).toBeUndefined();
    expect(cookies.sign('a=b')).toBeUndefined();
    expect(cookies.clearCookieHeader({ secure: false })).toBe(
      'hadoop.auth=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly',
    );
    expect(findCookie('a=1; b="2"', 'b')).toBe('2');
  });
});
