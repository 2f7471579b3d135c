import { expect } from '@jest/globals';
import { GssTokenError, gssTokenServerName } from './gss-token-server-name.js';
import { KeytabFormatError, parseKeytabPrincipals } from './keytab-principals.js';
import { parseDefaultRealm } from './krb5-default-realm.js';
import { principalShortName, ShortNameError } from './principal-short-name.js';
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

describe('krb5.conf default realm', () => {
  it('reads [libdefaults] default_realm only', () => {
    const text =
      '[realms]\n default_realm = WRONG\n[libdefaults]\n  # comment\n  default_realm = EXAMPLE.COM\n  rdns = false\n';
    expect(parseDefaultRealm(text)).toBe('EXAMPLE.COM');
    expect(parseDefaultRealm('[libdefaults]\n dns_lookup_kdc = false\n')).toBeUndefined();
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

describe('principal short names (DEFAULT)', () => {
  const shortName = principalShortName({
    rules: 'DEFAULT',
    mechanism: 'hadoop',
    defaultRealm: 'EXAMPLE.COM',
  });
  it('maps principals of the default realm with one or two components to the first', () => {
    expect(shortName('client@EXAMPLE.COM')).toBe('client');
    expect(shortName('client/host@EXAMPLE.COM')).toBe('client');
    expect(shortName('client')).toBe('client');
  });
  it('refuses other realms and longer names under hadoop, keeps them under mit', () => {
    expect(() => shortName('client@OTHER.COM')).toThrow(
      new ShortNameError('No rules applied to client@OTHER.COM'),
    );
    expect(() => shortName('a/b/c@EXAMPLE.COM')).toThrow(ShortNameError);
    const mit = principalShortName({ rules: 'DEFAULT', mechanism: 'mit', defaultRealm: 'EXAMPLE.COM' });
    expect(mit('client@OTHER.COM')).toBe('client@OTHER.COM');
  });
});
