import { inspect } from 'node:util';
import { Redacted } from '@fastpath/core';
import fc from 'fast-check';
import { TEXT_DEFAULT_MAX_LEN } from './data-input.js';
import { DataOutput } from './data-output.js';
import { DelegationTokenIdentifier } from './delegation-token-identifier.js';
import {
  Token,
  TOKEN_MAX_IDENTIFIER_BYTES,
  TOKEN_MAX_PASSWORD_BYTES,
  TOKEN_MAX_URL_STRING_LENGTH,
} from './token.js';
import { WireFormatError } from './wire-format-error.js';
import { expectError } from '@fastpath/test-support';

const wireError = (fn: () => unknown): WireFormatError =>
  expectError(fn, WireFormatError, { code: 'ERR_WIRE_FORMAT', retriable: false });

// Identifier FB FF BF gives the characters that differ between the alphabets (62 and 63).
const SMALL = new Token({
  identifier: Buffer.from('FBFFBF', 'hex'),
  password: new Redacted(Buffer.from('0001', 'hex')),
  kind: 'kms-dt',
  service: 'a',
});
// 03 FBFFBF | 02 0001 | 06 "kms-dt" | 01 "a"  (16 bytes)
const SMALL_HEX = '03FBFFBF' + '020001' + '066B6D732D6474' + '0161';
// Base64 by hand, 6 bits at a time: 03FBFF → A _ v _ ; BF0200 → v w I A ; 01066B → A Q Z r ;
// 6D732D → b X M t ; 647401 → Z H Q B ; 61 → Y Q (+ "==" in padded standard base64).
const SMALL_URL = 'A_v_vwIAAQZrbXMtZHQBYQ';
const SMALL_STANDARD = 'A/v/vwIAAQZrbXMtZHQBYQ==';

const expectSame = (a: Token, b: Token): void => {
  expect(a.identifier.equals(b.identifier)).toBe(true);
  expect(a.password.unwrap().equals(b.password.unwrap())).toBe(true);
  expect(a.kind).toBe(b.kind);
  expect(a.service).toBe(b.service);
};

describe('Token Writable and URL string', () => {
  it('encodes to the hand-computed bytes and URL string', () => {
    expect(SMALL.encode().toString('hex').toUpperCase()).toBe(SMALL_HEX);
    expect(SMALL.toUrlString()).toBe(SMALL_URL);
  });

  it('encodes a delegation token with its identifier length-prefixed', () => {
    const id = new DelegationTokenIdentifier('kms-dt', {
      owner: 'alice',
      renewer: '',
      realUser: '',
      issueDate: 1,
      maxDate: 2,
      sequenceNumber: 3,
      masterKeyId: 4,
    });
    const password = Buffer.alloc(20, 0x5a);
    const token = new Token({
      identifier: id.bytes,
      password: new Redacted(password),
      kind: 'kms-dt',
      service: '',
    });
    expect(token.encode().toString('hex')).toBe(
      '0d' +
        '000561 6c696365 00 00 01 02 03 04'.replace(/ /g, '') +
        '14' +
        '5a'.repeat(20) +
        '066b6d732d6474' +
        '00',
    );
  });

  it('decodes the URL string, standard base64, mixed alphabets, with or without padding', () => {
    for (const s of [
      SMALL_URL,
      SMALL_STANDARD,
      'A/v/vwIAAQZrbXMtZHQBYQ',
      'A_v_vwIAAQZrbXMtZHQBYQ==',
      'A/v_vwIAAQZrbXMtZHQBYQ==',
    ]) {
      expectSame(Token.fromUrlString(s), SMALL);
    }
  });

  it('refuses characters outside both alphabets, misplaced padding and impossible lengths', () => {
    for (const s of [
      `${SMALL_URL}\n`,
      ` ${SMALL_URL}`,
      'A_v_vwIA AQZrbXMtZHQBYQ',
      'A_v_vwIAAQZrbXMt.HQBYQ',
      'A_v_vwIA=AQZrbXMtZHQBYQ',
      `${SMALL_URL}===`,
      `${SMALL_URL}=`, // 22 + 1 is not a whole quad
      `${SMALL_URL}A`, // 23 characters: length % 4 == 3 decodes, but the extra byte is trailing
      'A_v_vwIAAQZrbXMtZHQBYQA_v', // 25: one character can carry no whole byte
      'ü',
      '',
    ]) {
      wireError(() => Token.fromUrlString(s));
    }
    expect(wireError(() => Token.fromUrlString('A_v_vwIA AQZr')).message).toBe(
      'token URL string contains characters outside the base64 and base64url alphabets',
    );
  });

  it('refuses an overlong URL string before decoding it', () => {
    const err = wireError(() => Token.fromUrlString('A'.repeat(TOKEN_MAX_URL_STRING_LENGTH + 1)));
    expect(err.message).toMatch(/more than the maximum/);
  });

  it('round-trips arbitrary tokens through bytes and URL strings', () => {
    const tokenArb = fc
      .record({
        identifier: fc.uint8Array({ maxLength: 80 }),
        password: fc.uint8Array({ maxLength: 64 }),
        kind: fc.string({ unit: 'binary', maxLength: 20 }),
        service: fc.string({ unit: 'binary', maxLength: 30 }),
      })
      .map(
        (f) =>
          new Token({
            identifier: f.identifier,
            password: new Redacted(Buffer.from(f.password)),
            kind: f.kind,
            service: f.service,
          }),
      );
    fc.assert(
      fc.property(tokenArb, (token) => {
        expectSame(Token.decode(token.encode()), token);
        const url = token.toUrlString();
        expect(url).toMatch(/^[A-Za-z0-9_-]*$/);
        expectSame(Token.fromUrlString(url), token);
        expectSame(Token.fromUrlString(token.encode().toString('base64')), token);
      }),
      { numRuns: 500 },
    );
  });
});

describe('Token decoding errors', () => {
  it('refuses negative and oversized lengths before reading', () => {
    expect(wireError(() => Token.decode(Buffer.from('FF', 'hex'))).message).toBe(
      'token identifier length -1 is negative',
    );
    const huge = new DataOutput().writeVInt(TOKEN_MAX_IDENTIFIER_BYTES + 1).toBuffer();
    expect(wireError(() => Token.decode(huge)).message).toBe(
      `token identifier length ${TOKEN_MAX_IDENTIFIER_BYTES + 1} is more than the maximum ${TOKEN_MAX_IDENTIFIER_BYTES}`,
    );
    const bigPassword = new DataOutput()
      .writeVInt(0)
      .writeVInt(TOKEN_MAX_PASSWORD_BYTES + 1)
      .toBuffer();
    wireError(() => Token.decode(bigPassword));
    const claimsMore = new DataOutput().writeVInt(1000).writeRaw(Buffer.alloc(10)).toBuffer();
    expect(wireError(() => Token.decode(claimsMore)).message).toMatch(/truncated/);
  });

  it('applies the Text limit to kind and service', () => {
    const bytes = new DataOutput()
      .writeVInt(0)
      .writeVInt(0)
      .writeVInt(TEXT_DEFAULT_MAX_LEN)
      .writeRaw(Buffer.alloc(TEXT_DEFAULT_MAX_LEN, 0x61))
      .writeText('')
      .toBuffer();
    wireError(() => Token.decode(bytes));
  });

  it('refuses trailing bytes and every truncation', () => {
    const bytes = SMALL.encode();
    wireError(() => Token.decode(Buffer.concat([bytes, Buffer.of(0)])));
    for (let n = 0; n < bytes.length; n++) wireError(() => Token.decode(bytes.subarray(0, n)));
  });
});

describe('Token construction and printing', () => {
  it('refuses fields the format cannot carry back', () => {
    const base = {
      identifier: Buffer.alloc(1),
      password: new Redacted(Buffer.alloc(1)),
      kind: 'k',
      service: '',
    };
    wireError(() => new Token({ ...base, kind: 'k'.repeat(TEXT_DEFAULT_MAX_LEN) }));
    wireError(() => new Token({ ...base, service: '\uDFFF' }));
    wireError(
      () => new Token({ ...base, password: new Redacted(Buffer.alloc(TOKEN_MAX_PASSWORD_BYTES + 1)) }),
    );
    wireError(() => new Token({ ...base, password: Buffer.alloc(1) as unknown as Redacted<Buffer> }));
    wireError(() => new Token({ ...base, identifier: 'x' as unknown as Uint8Array }));
  });

  it('keeps its own copies of the bytes', () => {
    const identifier = Buffer.from('0102', 'hex');
    const password = Buffer.from('0304', 'hex');
    const token = new Token({ identifier, password: new Redacted(password), kind: 'k', service: '' });
    identifier[0] = 0xff;
    password[0] = 0xff;
    expect(token.identifier.toString('hex')).toBe('0102');
    expect(token.password.unwrap().toString('hex')).toBe('0304');
    expect(Object.isFrozen(token)).toBe(true);
  });

  it('prints kind, service and the decoded identifier, never the password', () => {
    const id = new DelegationTokenIdentifier('kms-dt', {
      owner: 'alice',
      renewer: 'bob',
      realUser: '',
      issueDate: 10,
      maxDate: 20,
      sequenceNumber: 7,
      masterKeyId: 2,
    });
    const password = Buffer.from('secret-password-bytes');
    const token = new Token({
      identifier: id.bytes,
      password: new Redacted(password),
      kind: 'kms-dt',
      service: 'kms:9600',
    });
    const text = String(token);
    expect(text).toBe(
      'Kind: kms-dt, Service: kms:9600, Ident: (kms-dt owner=alice, renewer=bob, realUser=, issueDate=10, ' +
        'maxDate=20, sequenceNumber=7, masterKeyId=2)',
    );
    expect(String(SMALL)).toBe('Kind: kms-dt, Service: a, Ident: (fbffbf)');
    for (const shown of [text, inspect(token), JSON.stringify(token)]) {
      expect(shown).not.toContain('secret-password-bytes');
      expect(shown).not.toContain(password.toString('hex'));
      expect(shown).not.toContain(password.toString('base64'));
    }
    expect(inspect(token)).toContain('<redacted>');
  });
});
