import { expect } from '@jest/globals';
import { GssTokenError, gssTokenServerName } from './gss-token-server-name.js';
import { KeytabFormatError, parseKeytabPrincipals } from './keytab-principals.js';
import { keytabBytes, krb5Token, spnegoToken } from '../../../test/support/kerberos-bytes.js';

describe('keytab principals', () => {
  it('lists the principals of an MIT keytab, skipping holes and repeats', () => {
    const bytes = keytabBytes([
      'HTTP/localhost@EXAMPLE.COM',
      'client@EXAMPLE.COM',
      'HTTP/localhost@EXAMPLE.COM',
    ]);
    expect(parseKeytabPrincipals(bytes)).toEqual(['HTTP/localhost@EXAMPLE.COM', 'client@EXAMPLE.COM']);
    expect(parseKeytabPrincipals(Buffer.from([0x05, 0x02]))).toEqual([]);
  });

  it('refuses what is not a keytab, and truncated ones', () => {
    expect(() => parseKeytabPrincipals(Buffer.from('<configuration/>'))).toThrow(KeytabFormatError);
    const whole = keytabBytes(['HTTP/localhost@EXAMPLE.COM']);
    for (let cut = 3; cut < whole.length; cut += 7) {
      expect(() => parseKeytabPrincipals(whole.subarray(0, cut))).toThrow(KeytabFormatError);
    }
  });
});

describe('GSS token server name', () => {
  it('reads the target of a raw Kerberos and of a SPNEGO-wrapped AP-REQ', () => {
    const raw = krb5Token('HTTP/localhost@EXAMPLE.COM');
    expect(gssTokenServerName(raw)).toBe('HTTP/localhost@EXAMPLE.COM');
    expect(gssTokenServerName(spnegoToken(raw))).toBe('HTTP/localhost@EXAMPLE.COM');
    expect(gssTokenServerName(krb5Token('host/localhost@EXAMPLE.COM'))).toBe('host/localhost@EXAMPLE.COM');
  });

  it("refuses malformed tokens and other Kerberos messages with Hadoop's messages", () => {
    expect(() => gssTokenServerName(krb5Token('HTTP/x@R', Buffer.from([0x02, 0x00])))).toThrow(
      'Not an AP-REQ token',
    );
    const raw = krb5Token('HTTP/localhost@EXAMPLE.COM');
    for (let cut = 0; cut < raw.length; cut += 5) {
      expect(() => gssTokenServerName(raw.subarray(0, cut))).toThrow(GssTokenError);
    }
    expect(() => gssTokenServerName(Buffer.from('not a token'))).toThrow('Malformed gss token');
    // Every single-byte corruption is refused or still parses: it never throws anything else.
    for (let i = 0; i < raw.length; i++) {
      const bad = Buffer.from(raw);
      bad[i] = (bad[i] as number) ^ 0xff;
      try {
        gssTokenServerName(bad);
      } catch (error) {
        expect(error).toBeInstanceOf(GssTokenError);
      }
    }
  });
});
