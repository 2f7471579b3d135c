import { inspect } from 'node:util';
import { Redacted } from '@fastpath/core';
import fc from 'fast-check';
import { DataOutput, DelegationTokenIdentifier, Token } from '@fastpath/hadoop-common';
import { KMS_DELEGATION_TOKEN_KIND, KmsDelegationToken } from './kms-delegation-token.js';
import { KmsMalformedTokenError } from './kms-errors.js';

// A token written out byte by byte from the layout in Token.java and
// AbstractDelegationTokenIdentifier.java, independent of any encoder in this repository.
const IDENTIFIER = Buffer.from(
  [
    '00', // version
    '05 616c696365', // owner "alice"
    '04 7961726e', // renewer "yarn"
    '00', // realUser ""
    '8A 018bcfe56800', // issueDate 1700000000000
    '8A 018bf3f1ec00', // maxDate 1700604800000
    '07', // sequenceNumber 7
    '02', // masterKeyId 2
  ]
    .join('')
    .replace(/ /g, ''),
  'hex',
);
const PASSWORD = Buffer.alloc(20, 0xab);
const TOKEN_BYTES = Buffer.concat([
  Buffer.from([IDENTIFIER.length]),
  IDENTIFIER,
  Buffer.from([20]),
  PASSWORD,
  Buffer.from('066b6d732d6474', 'hex'), // kind "kms-dt"
  Buffer.from('0e3132372e302e302e313a39363030', 'hex'), // service "127.0.0.1:9600"
]);
const URL_STRING = TOKEN_BYTES.toString('base64url');

describe('KmsDelegationToken', () => {
  it('reads every field of a token URL string', () => {
    const token = KmsDelegationToken.fromUrlString(URL_STRING);
    expect(token.toJSON()).toEqual({
      kind: KMS_DELEGATION_TOKEN_KIND,
      service: '127.0.0.1:9600',
      owner: 'alice',
      renewer: 'yarn',
      realUser: '',
      issueDate: 1_700_000_000_000,
      maxDate: 1_700_604_800_000,
      sequenceNumber: 7,
      masterKeyId: 2,
    });
    expect(token.identifier.equals(IDENTIFIER)).toBe(true);
    expect(token.password.unwrap().equals(PASSWORD)).toBe(true);
    expect(token.toUrlString()).toBe(URL_STRING);
  });

  it('accepts the standard Base64 alphabet, padding, surrounding blanks and a Redacted string', () => {
    const standard = TOKEN_BYTES.toString('base64');
    expect(standard).toMatch(/[+/=]/);
    expect(KmsDelegationToken.fromUrlString(`  ${standard}\n`).owner).toBe('alice');
    expect(KmsDelegationToken.fromUrlString(new Redacted(URL_STRING)).sequenceNumber).toBe(7);
    const token = KmsDelegationToken.fromUrlString(URL_STRING);
    expect(KmsDelegationToken.from(token)).toBe(token);
  });

  it('round-trips any identifier the Hadoop codec produces', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 });
    fc.assert(
      fc.property(
        fc.record({
          owner: text,
          renewer: text,
          realUser: text,
          issueDate: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
          maxDate: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
          sequenceNumber: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
          masterKeyId: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        }),
        fc.uint8Array({ minLength: 0, maxLength: 64 }),
        text,
        text,
        (fields, password, kind, service) => {
          const identifier = new DelegationTokenIdentifier(kind, fields).bytes;
          const s = new Token({
            identifier,
            password: new Redacted(Buffer.from(password)),
            kind,
            service,
          }).toUrlString();
          const token = KmsDelegationToken.fromUrlString(s);
          expect(token.toJSON()).toEqual({ kind, service, ...fields });
          expect(token.password.unwrap().equals(Buffer.from(password))).toBe(true);
          expect(token.toUrlString()).toBe(s);
        },
      ),
    );
  });

  it.each<[string, bigint]>([
    ['0', 0n],
    ['-1', -1n],
    ['2^31', 1n << 31n],
    ['-2^31', -(1n << 31n)],
    ['2^53', 1n << 53n],
    ['-2^53', -(1n << 53n)],
    ['2^63-1', (1n << 63n) - 1n],
    ['-2^63', -(1n << 63n)],
  ])('reads dates of %s, as Hadoop writes any Java long', (_label, date) => {
    // Written field by field, so the vector does not depend on the identifier class.
    const identifier = new DataOutput()
      .writeByte(0)
      .writeText('alice')
      .writeText('')
      .writeText('')
      .writeVLong(date)
      .writeVLong(date)
      .writeVInt(2 ** 31 - 1)
      .writeVInt(-(2 ** 31))
      .toBuffer();
    const s = new Token({
      identifier,
      password: new Redacted(PASSWORD),
      kind: 'kms-dt',
      service: '',
    }).toUrlString();
    const token = KmsDelegationToken.fromUrlString(s);
    expect([token.decodedIdentifier.issueDateLong, token.decodedIdentifier.maxDateLong]).toEqual([
      date,
      date,
    ]);
    expect(token.maxDate).toBe(Number(date));
    expect([token.sequenceNumber, token.masterKeyId]).toEqual([2 ** 31 - 1, -(2 ** 31)]);
    expect(token.decodedIdentifier.bytes.equals(identifier)).toBe(true);
    expect(token.identifier.equals(identifier)).toBe(true);
    expect(JSON.parse(JSON.stringify(token))).toMatchObject({ owner: 'alice', maxDate: Number(date) });
  });

  it('keeps fields a subclass of the identifier appends', () => {
    const extended = Buffer.concat([IDENTIFIER, Buffer.from([3, 0x61, 0x62, 0x63])]);
    const s = new Token({
      identifier: extended,
      password: new Redacted(PASSWORD),
      kind: 'kms-dt',
      service: '',
    }).toUrlString();
    const token = KmsDelegationToken.fromUrlString(s);
    expect(token.owner).toBe('alice');
    expect(token.identifier.equals(extended)).toBe(true);
    expect(token.toUrlString()).toBe(s);
  });

  it('never shows the password or the URL string when printed, logged or serialized', () => {
    const token = KmsDelegationToken.fromUrlString(URL_STRING);
    const passwordHex = PASSWORD.toString('hex');
    for (const shown of [
      String(token),
      // eslint-disable-next-line @typescript-eslint/restrict-template-expressions -- interpolation is one of the ways under test
      `${token}`,
      JSON.stringify(token),
      inspect(token),
      inspect({ token }),
    ]) {
      expect(shown).not.toContain(URL_STRING);
      expect(shown).not.toContain(URL_STRING.slice(-20));
      expect(shown).not.toContain(passwordHex);
      expect(shown).toContain('alice');
    }
    expect(String(token)).toBe('kms-dt token of alice (renewer yarn, sequence number 7)');
    expect(String(token.password)).toBe('<redacted>');
  });

  it.each([
    ['the empty string', ''],
    ['text that is not Base64', 'not a token!'],
    ['a truncated token', URL_STRING.slice(0, 30)],
    ['a token with trailing bytes', Buffer.concat([TOKEN_BYTES, Buffer.from([0])]).toString('base64url')],
    [
      'an identifier of an unknown version',
      Buffer.concat([Buffer.from([IDENTIFIER.length, 1]), TOKEN_BYTES.subarray(2)]).toString('base64url'),
    ],
    ['a too long string', 'A'.repeat(1024 * 1024 + 4)],
  ])('refuses %s without repeating it', (_what, input) => {
    let caught: unknown;
    try {
      KmsDelegationToken.fromUrlString(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KmsMalformedTokenError);
    expect((caught as KmsMalformedTokenError).code).toBe('ERR_KMS_TOKEN_MALFORMED');
    if (input.length > 8) expect((caught as Error).message).not.toContain(input.slice(0, 16));
  });

  it('refuses a value that is not a string', () => {
    expect(() => KmsDelegationToken.fromUrlString(42 as unknown as string)).toThrow(KmsMalformedTokenError);
  });
});
