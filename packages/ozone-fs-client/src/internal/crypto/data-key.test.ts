import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DataKey } from './data-key.js';
import { KeyDecryptor } from './key-decryptor.js';
import { KeyEncryptor } from './key-encryptor.js';

const hex = (s: string) => Buffer.from(s, 'hex');
const DEK = hex('000102030405060708090a0b0c0d0e0f');
const IV = hex('0000000000000000ffffffffffffffff');
const PLAIN = Buffer.from(Array.from({ length: 40 }, (_, i) => i));
// Hadoop 3.4.3's CryptoOutputStream with JceAesCtrCryptoCodec (the spec's vector).
const CIPHER = hex('39a6ed090e5d54afb7db092848b29a1d03098879f0be11b968bab0a62ca387c1afb50b6768aa6d12');

describe('DataKey', () => {
  it("encrypts as Hadoop's CryptoOutputStream does (the spec vector)", () => {
    expect(new DataKey(DEK, IV).transformAt(0, PLAIN).equals(CIPHER)).toBe(true);
  });

  it('decrypts a slice at an offset inside a block (offset 21: counter 1, padding 5)', () => {
    const key = new DataKey(DEK, IV);
    expect(key.transformAt(21, CIPHER.subarray(21, 31)).toString('hex')).toBe('15161718191a1b1c1d1e');
  });

  it('decrypts any slice at any offset to the same slice of the plaintext, for both key sizes', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(16, 32),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.uint8Array({ minLength: 1, maxLength: 700 }),
        fc.nat(),
        fc.nat(),
        (bytes, iv, plain, a, b) => {
          const key = new DataKey(randomBytes(bytes), iv);
          const cipher = key.transformAt(0, plain);
          const from = a % plain.length;
          const to = from + (b % (plain.length - from + 1));
          expect(
            key.transformAt(from, cipher.subarray(from, to)).equals(Buffer.from(plain.subarray(from, to))),
          ).toBe(true);
        },
      ),
    );
  });

  it('counts across the 2^64 boundary of the low half, as calculateIV carries', () => {
    // Block 1 of this IV is 00..01 00..00: a counter that wrapped at 64 bits would give 00..00 00..00.
    const key = new DataKey(DEK, IV);
    const whole = key.transformAt(0, Buffer.alloc(48));
    const fresh = new DataKey(DEK, hex('00000000000000010000000000000000')).transformAt(0, Buffer.alloc(16));
    expect(whole.subarray(16, 32).equals(fresh)).toBe(true);
  });

  it('never prints its material and refuses use after destroy', () => {
    const key = new DataKey(DEK, IV);
    const texts = [JSON.stringify({ key }), inspect(key), inspect({ key }, { showHidden: true })];
    for (const text of texts) {
      expect(text).not.toContain('0001020304');
      expect(text).not.toContain('0, 1, 2, 3');
      expect(text).not.toContain('AAECAwQF'); // base64
    }
    key.destroy();
    expect(key.destroyed).toBe(true);
    expect(() => key.transformAt(0, PLAIN)).toThrow(expect.objectContaining({ code: 'ERR_OZONE_CLOSED' }));
  });

  it('zeroes its own copy, not the caller’s, and refuses odd sizes', () => {
    const material = Buffer.from(DEK);
    const key = new DataKey(material, IV);
    key.destroy();
    expect(material.equals(DEK)).toBe(true);
    expect(() => new DataKey(Buffer.alloc(24), IV)).toThrow(RangeError);
    expect(() => new DataKey(DEK, Buffer.alloc(12))).toThrow(RangeError);
  });
});

describe('KeyEncryptor and KeyDecryptor', () => {
  it('encrypt in write order and decrypt positional reads back to the plaintext', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 100 }), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.nat(),
        (writes, a, b) => {
          const enc = new KeyEncryptor(new DataKey(DEK, IV));
          const cipher = Buffer.concat(writes.map((w) => enc.update(w)));
          const plain = Buffer.concat(writes);
          expect(cipher.equals(new DataKey(DEK, IV).transformAt(0, plain))).toBe(true);
          if (plain.length === 0) return;
          const from = a % plain.length;
          const to = from + (b % (plain.length - from + 1));
          const view = Buffer.from(cipher.subarray(from, to));
          new KeyDecryptor(new DataKey(DEK, IV)).decryptInPlace(from, view);
          expect(view.equals(plain.subarray(from, to))).toBe(true);
        },
      ),
    );
  });

  it('decrypts each part of a multipart key from counter 0', () => {
    const partA = Buffer.from('first part, thirty-three bytes!!!');
    const partB = Buffer.from('the second part');
    const cipher = Buffer.concat([
      new DataKey(DEK, IV).transformAt(0, partA),
      new DataKey(DEK, IV).transformAt(0, partB),
    ]);
    const view = Buffer.from(cipher.subarray(30, 40));
    new KeyDecryptor(new DataKey(DEK, IV), [0, partA.length]).decryptInPlace(30, view);
    expect(view.equals(Buffer.concat([partA, partB]).subarray(30, 40))).toBe(true);
  });

  it('refuses to encrypt after destroy', () => {
    const enc = new KeyEncryptor(new DataKey(DEK, IV));
    enc.destroy();
    expect(() => enc.update(PLAIN)).toThrow(expect.objectContaining({ code: 'ERR_OZONE_CLOSED' }));
  });
});
