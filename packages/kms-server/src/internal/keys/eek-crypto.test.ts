import { createCipheriv } from 'node:crypto';
import { decryptDek, encryptDek, flipIv } from './eek-crypto.js';

/** One AES block encrypted on its own (ECB): the CTR keystream block for counter `block`. */
function keystreamBlock(key: Buffer, block: Buffer): Buffer {
  const ecb = createCipheriv(`aes-${key.length * 8}-ecb`, key, null);
  ecb.setAutoPadding(false);
  return Buffer.concat([ecb.update(block), ecb.final()]);
}

function addOne(block: Buffer): Buffer {
  const out = Buffer.from(block);
  for (let i = out.length - 1; i >= 0; i--) {
    out[i] = ((out[i] as number) + 1) & 0xff;
    if (out[i] !== 0) break;
  }
  return out;
}

const xor = (a: Buffer, b: Buffer): Buffer => Buffer.from(a.map((x, i) => x ^ (b[i] as number)));

describe('EEK cryptography', () => {
  it('flips every bit of the IV', () => {
    expect(flipIv(Buffer.from([0x00, 0xff, 0x0f, 0xa5])).equals(Buffer.from([0xff, 0x00, 0xf0, 0x5a]))).toBe(
      true,
    );
  });

  it.each([16, 24, 32])(
    'encrypts a %i-byte DEK with AES-CTR under the flipped IV, counting the whole block big-endian',
    (keyBytes) => {
      const key = Buffer.alloc(keyBytes, 0x42).map((b, i) => b ^ i) as Buffer;
      // The flipped IV ends in 0xff 0xff: the second block's counter carries across bytes.
      const iv = Buffer.from('0123456789abcdef0123456789ab0000', 'hex');
      const dek = Buffer.alloc(keyBytes, 0x5a);
      const counter0 = flipIv(iv);
      const stream = Buffer.concat([
        keystreamBlock(Buffer.from(key), counter0),
        keystreamBlock(Buffer.from(key), addOne(counter0)),
      ]);
      const expected = xor(dek, stream.subarray(0, keyBytes));
      const encrypted = encryptDek(key, iv, dek);
      expect(encrypted.equals(expected)).toBe(true);
      expect(decryptDek(key, iv, encrypted).equals(dek)).toBe(true);
    },
  );
});
