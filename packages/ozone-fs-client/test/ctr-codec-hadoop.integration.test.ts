// The AES/CTR data cipher against Hadoop's own: vectors computed in this run by Hadoop's
// JceAesCtrCryptoCodec (calculateIV), CryptoOutputStream and CryptoInputStream's positional reads,
// through the driver of `@fastpath/hadoop-fixture`.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { prepareHadoop, runHadoopClient, type HadoopInstallation } from '@fastpath/hadoop-fixture';
import { calculateIv } from '../src/internal/crypto/ctr-iv.js';
import { DataKey } from '../src/internal/crypto/data-key.js';
import { KeyEncryptor } from '../src/internal/crypto/key-encryptor.js';

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const unb64 = (s: unknown) => Buffer.from(String(s), 'base64url');
// The driver's ctrCodec runs without a server: this provider is never contacted.
const NO_PROVIDER = 'kms://http@127.0.0.1:1/kms';

let hadoop: HadoopInstallation;
beforeAll(async () => {
  hadoop = await prepareHadoop();
}, 600_000);

interface Case {
  name: string;
  key: Buffer;
  iv: Buffer;
  plaintext: Buffer;
}

// IVs whose low 64 bits are near the top, so that counters within the data carry into the high half.
const CASES: Case[] = [
  {
    name: 'AES-128, an IV that carries at the second block',
    key: Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex'),
    iv: Buffer.from('0000000000000000ffffffffffffffff', 'hex'),
    plaintext: randomBytes(5000),
  },
  {
    name: 'AES-256, an IV that carries through all 16 bytes',
    key: randomBytes(32),
    iv: Buffer.from('fffffffffffffffffffffffffffffffe', 'hex'),
    plaintext: randomBytes(70_001),
  },
  { name: 'AES-128, a random IV', key: randomBytes(16), iv: randomBytes(16), plaintext: randomBytes(33_333) },
];

describe("the data cipher gives Hadoop's bytes", () => {
  it.each(CASES)(
    '$name',
    async ({ key, iv, plaintext }) => {
      const counters = ['0', '1', '2', '255', '65536', '18446744073709551615', '9223372036854775808'];
      const reads = [
        { position: 0, length: 1 },
        { position: 21, length: 10 },
        { position: 15, length: 2 },
        ...Array.from({ length: 20 }, () => {
          const position = Math.floor(Math.random() * plaintext.length);
          return { position, length: 1 + Math.floor(Math.random() * (plaintext.length - position)) };
        }),
      ];
      const [answer] = await runHadoopClient(hadoop, NO_PROVIDER, [
        {
          op: 'ctrCodec',
          key: b64(key),
          iv: b64(iv),
          plaintext: b64(plaintext),
          counters,
          reads,
          bufferSize: 4096,
        },
      ]);
      if (!answer?.ok) throw new Error(`Hadoop's codec failed: ${JSON.stringify(answer)}`);
      expect(answer.codec).toBe('org.apache.hadoop.crypto.JceAesCtrCryptoCodec');
      // calculateIV for each counter, carry included.
      expect((answer.calculatedIvs as string[]).map(unb64)).toEqual(
        counters.map((c) => calculateIv(iv, BigInt(c))),
      );
      // The whole ciphertext, written in uneven pieces as a key stream writes it.
      const enc = new KeyEncryptor(new DataKey(key, iv));
      const pieces: Buffer[] = [];
      for (let at = 0; at < plaintext.length; at += 777)
        pieces.push(enc.update(plaintext.subarray(at, at + 777)));
      const cipher = Buffer.concat(pieces);
      expect(cipher.equals(unb64(answer.ciphertext))).toBe(true);
      expect(cipher.equals(plaintext)).toBe(false);
      // Hadoop's positional reads of that ciphertext, and ours of the same ranges.
      const dek = new DataKey(key, iv);
      (answer.reads as string[]).forEach((got, i) => {
        const { position, length } = reads[i] as { position: number; length: number };
        const expected = plaintext.subarray(position, position + length);
        expect(unb64(got).equals(expected)).toBe(true);
        expect(dek.transformAt(position, cipher.subarray(position, position + length)).equals(expected)).toBe(
          true,
        );
      });
    },
    300_000,
  );
});
