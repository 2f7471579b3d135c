import { inspect } from 'node:util';
import fc from 'fast-check';
import { DataOutput } from './data-output.js';
import { DELEGATION_KEY_MAX_KEY_BYTES, DelegationKey } from './delegation-key.js';
import { WireFormatError } from './wire-format-error.js';
import { expectError } from '@fastpath/test-support';

const wireError = (fn: () => unknown): WireFormatError =>
  expectError(fn, WireFormatError, { code: 'ERR_WIRE_FORMAT', retriable: false });

const KEY = Buffer.from('0102030405060708', 'hex');

describe('DelegationKey bytes', () => {
  it('matches the hand-computed serialisation', () => {
    const key = new DelegationKey({ keyId: 1, expiryDate: 1_700_000_000_000, key: KEY });
    // keyId VInt 1 | expiryDate VLong (8A + 6 bytes) | VInt length 8 | key
    expect(key.encode().toString('hex').toUpperCase()).toBe(
      '01' + '8A018BCFE56800' + '08' + '0102030405060708',
    );
  });

  it('writes a missing key as length -1', () => {
    const key = new DelegationKey({ keyId: -1, expiryDate: 0, key: null });
    expect(key.encode().toString('hex')).toBe('ff00ff');
    const back = DelegationKey.decode(key.encode());
    expect(back.key).toBeNull();
    expect(back.equals(key)).toBe(true);
  });

  it('round-trips arbitrary keys', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        fc.maxSafeInteger(),
        fc.option(fc.uint8Array({ maxLength: 64 }), { nil: null }),
        (keyId, expiryDate, bytes) => {
          const key = new DelegationKey({
            keyId,
            expiryDate,
            key: bytes === null ? null : Buffer.from(bytes),
          });
          const back = DelegationKey.decode(key.encode());
          expect(back.equals(key)).toBe(true);
          expect(back.keyId).toBe(keyId);
          expect(back.expiryDate).toBe(expiryDate);
          expect(back.key?.unwrap().toString('hex') ?? null).toBe(
            bytes === null ? null : Buffer.from(bytes).toString('hex'),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('DelegationKey equality (behaviour 12)', () => {
  const base = new DelegationKey({ keyId: 7, expiryDate: 1000, key: KEY });

  it('is equal for the same id, expiry and bytes', () => {
    expect(base.equals(new DelegationKey({ keyId: 7, expiryDate: 1000, key: Buffer.from(KEY) }))).toBe(true);
  });

  it('differs when any of id, expiry or bytes differs', () => {
    expect(base.equals(new DelegationKey({ keyId: 8, expiryDate: 1000, key: KEY }))).toBe(false);
    expect(base.equals(new DelegationKey({ keyId: 7, expiryDate: 1001, key: KEY }))).toBe(false);
    expect(
      base.equals(
        new DelegationKey({ keyId: 7, expiryDate: 1000, key: Buffer.from('0102030405060709', 'hex') }),
      ),
    ).toBe(false);
    expect(base.equals(new DelegationKey({ keyId: 7, expiryDate: 1000, key: KEY.subarray(0, 7) }))).toBe(
      false,
    );
    expect(base.equals(new DelegationKey({ keyId: 7, expiryDate: 1000, key: null }))).toBe(false);
    expect(new DelegationKey({ keyId: 7, expiryDate: 1000, key: null }).equals(base)).toBe(false);
  });

  it('tells a missing key from an empty one', () => {
    const none = new DelegationKey({ keyId: 1, expiryDate: 1, key: null });
    const empty = new DelegationKey({ keyId: 1, expiryDate: 1, key: Buffer.alloc(0) });
    expect(none.equals(empty)).toBe(false);
    expect(empty.equals(new DelegationKey({ keyId: 1, expiryDate: 1, key: Buffer.alloc(0) }))).toBe(true);
    expect(DelegationKey.decode(empty.encode()).key?.unwrap().length).toBe(0);
  });

  it('withExpiry keeps id and bytes and leaves the original alone', () => {
    const later = base.withExpiry(5000);
    expect(later.expiryDate).toBe(5000);
    expect(later.keyId).toBe(7);
    expect(later.key?.unwrap().equals(KEY)).toBe(true);
    expect(base.expiryDate).toBe(1000);
    expect(later.equals(base)).toBe(false);
    expect(later.withExpiry(1000).equals(base)).toBe(true);
  });
});

describe('DelegationKey validation and decoding errors', () => {
  it('refuses fields the format cannot carry', () => {
    wireError(() => new DelegationKey({ keyId: 2 ** 31, expiryDate: 0, key: null }));
    wireError(() => new DelegationKey({ keyId: 0, expiryDate: 2 ** 53, key: null }));
    wireError(
      () =>
        new DelegationKey({ keyId: 0, expiryDate: 0, key: Buffer.alloc(DELEGATION_KEY_MAX_KEY_BYTES + 1) }),
    );
  });

  it('accepts a key of exactly the maximum length and refuses one byte more', () => {
    const atMax = new DelegationKey({
      keyId: 0,
      expiryDate: 0,
      key: Buffer.alloc(DELEGATION_KEY_MAX_KEY_BYTES, 1),
    });
    expect(DelegationKey.decode(atMax.encode()).equals(atMax)).toBe(true);
    const over = new DataOutput()
      .writeVInt(0)
      .writeVLong(0)
      .writeVInt(DELEGATION_KEY_MAX_KEY_BYTES + 1)
      .toBuffer();
    expect(wireError(() => DelegationKey.decode(over)).message).toBe(
      `byte array length ${DELEGATION_KEY_MAX_KEY_BYTES + 1} is more than the maximum ${DELEGATION_KEY_MAX_KEY_BYTES}`,
    );
  });

  it('refuses a length below -1, trailing bytes and every truncation', () => {
    wireError(() => DelegationKey.decode(Buffer.from('0000FE', 'hex')));
    const bytes = new DelegationKey({ keyId: 300, expiryDate: 1_700_000_000_000, key: KEY }).encode();
    wireError(() => DelegationKey.decode(Buffer.concat([bytes, Buffer.of(1)])));
    for (let n = 0; n < bytes.length; n++) wireError(() => DelegationKey.decode(bytes.subarray(0, n)));
  });

  it('never shows the key material', () => {
    const key = new DelegationKey({ keyId: 3, expiryDate: 9, key: Buffer.from('top-secret-key') });
    for (const shown of [String(key), inspect(key), JSON.stringify(key)]) {
      expect(shown).not.toContain('top-secret-key');
      expect(shown).not.toContain(Buffer.from('top-secret-key').toString('hex'));
    }
    expect(String(key)).toBe('DelegationKey(keyId=3, expiryDate=9, key=<redacted>)');
  });
});
