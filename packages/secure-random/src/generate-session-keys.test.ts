import { randomFillSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { Redacted, FastpathError } from '@fastpath/core';
import { DeviceSecureRandom } from './device-secure-random.js';
import { defaultSecureRandom, generateSecureRandom } from './generate-secure-random.js';
import {
  DEFAULT_SESSION_KEY_OPTIONS,
  generateSessionKeys,
  SESSION_IV_BYTES,
} from './generate-session-keys.js';
import { inspectPool } from './pooled-secure-random.js';
import { expectError } from '@fastpath/test-support';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'secure-random-keys-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('generateSecureRandom', () => {
  it('draws from the module default pool', () => {
    generateSecureRandom(4);
    const before = inspectPool(defaultSecureRandom);
    const bytes = generateSecureRandom(16);
    expect(bytes).toBeInstanceOf(Buffer);
    expect(bytes.length).toBe(16);
    expect(inspectPool(defaultSecureRandom).pos).toBe(before.pos + 16);
  });

  it.each([-1, 1.5, Number.NaN, '16', 2 ** 31])('rejects the size %p', (size) => {
    expectError(() => generateSecureRandom(size as number), FastpathError, {
      code: 'ERR_SECURE_RANDOM_INVALID_SIZE',
    });
  });
});

describe('generateSessionKeys', () => {
  it('draws two 16-byte keys and two 16-byte IVs by default, all different', () => {
    expect(DEFAULT_SESSION_KEY_OPTIONS.keyBytes).toBe(16);
    const keys = generateSessionKeys();
    const parts = [keys.inKey, keys.inIv, keys.outKey, keys.outIv].map((part) => part.unwrap());
    expect(parts.map((part) => part.length)).toEqual([16, 16, 16, 16]);
    expect(new Set(parts.map((part) => part.toString('hex'))).size).toBe(4);
  });

  it.each([24, 32] as const)('draws %i-byte keys when asked', (keyBytes) => {
    const keys = generateSessionKeys({ keyBytes });
    expect(keys.inKey.unwrap().length).toBe(keyBytes);
    expect(keys.outKey.unwrap().length).toBe(keyBytes);
    expect(keys.inIv.unwrap().length).toBe(SESSION_IV_BYTES);
    expect(keys.outIv.unwrap().length).toBe(SESSION_IV_BYTES);
  });

  it('never prints key material', () => {
    const keys = generateSessionKeys();
    expect(keys.inKey).toBeInstanceOf(Redacted);
    const secret = keys.outKey.unwrap().toString('hex');
    // eslint-disable-next-line @typescript-eslint/restrict-template-expressions -- interpolation is one of the ways under test
    for (const text of [JSON.stringify(keys), inspect(keys), `${keys.inIv}`]) {
      expect(text).not.toContain(secret);
      expect(text).toContain('<redacted>');
    }
  });

  it('draws in Hadoop order (in-key, in-IV, out-key, out-IV) from the given source', () => {
    const content = randomFillSync(Buffer.alloc(8192));
    const path = join(dir, 'device');
    writeFileSync(path, content);
    using source = new DeviceSecureRandom({ path });
    const keys = generateSessionKeys({ keyBytes: 32, source });
    expect(
      Buffer.concat([keys.inKey.unwrap(), keys.inIv.unwrap(), keys.outKey.unwrap(), keys.outIv.unwrap()]),
    ).toEqual(content.subarray(0, 96));
  });

  it('passes a failing source on instead of returning a partial key set', () => {
    const path = join(dir, 'short');
    writeFileSync(path, randomFillSync(Buffer.alloc(40)));
    using source = new DeviceSecureRandom({ path, reservoirBytes: 8 });
    expectError(() => generateSessionKeys({ source }), FastpathError, {
      code: 'ERR_SECURE_RANDOM_SHORT_READ',
    });
  });

  it('rejects a key size AES does not have', () => {
    expect(
      expectError(() => generateSessionKeys({ keyBytes: 20 as never }), FastpathError, {
        code: 'ERR_INVALID_OPTION',
      }),
    ).toMatchObject({ option: 'keyBytes' });
  });
});
