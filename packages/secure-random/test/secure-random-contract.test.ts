// One contract, every implementation: what any SecureRandom promises its callers.
import {
  DeviceSecureRandom,
  MAX_DRAW_BYTES,
  NodeCryptoSecureRandom,
  PooledSecureRandom,
  type SecureRandom,
  type SecureRandomImpl,
} from '@fastpath/secure-random';
import { expectError } from '@fastpath/test-support';
import { FastpathError } from '@fastpath/core';

const implementations: [string, SecureRandomImpl, () => SecureRandom][] = [
  ['pooled (defaults)', 'pooled', () => new PooledSecureRandom()],
  ['pooled (256-byte pool)', 'pooled', () => new PooledSecureRandom({ poolBytes: 256 })],
  ['node-crypto', 'node-crypto', () => new NodeCryptoSecureRandom()],
  ['device', 'device', () => new DeviceSecureRandom()],
];

describe.each(implementations)('SecureRandom contract: %s', (_name, impl, create) => {
  let random: SecureRandom;
  beforeEach(() => {
    random = create();
  });
  afterEach(() => {
    random.close();
  });

  it('names its implementation', () => {
    expect(random.impl).toBe(impl);
  });

  it.each([0, 1, 3, 16, 64, 65, 255, 4095, 4096, 100_000])(
    'returns a new Buffer of %i bytes that owns its memory',
    (size) => {
      const bytes = random.bytes(size);
      expect(Buffer.isBuffer(bytes)).toBe(true);
      expect(bytes.length).toBe(size);
      expect(bytes.byteOffset).toBe(0);
      expect(bytes.buffer.byteLength).toBe(size);
      if (size >= 16) {
        expect(bytes.equals(random.bytes(size))).toBe(false);
      }
    },
  );

  it('fills every byte of any kind of view, and returns the view', () => {
    const patterned = (): ArrayBuffer => new Uint8Array(4096).fill(0xaa).buffer;
    const targets: ArrayBufferView[] = [
      Buffer.alloc(4096, 0xaa),
      new Uint8Array(patterned()),
      new Uint32Array(patterned()),
      new Float64Array(patterned(), 8, 510),
      new DataView(patterned()),
    ];
    for (const target of targets) {
      expect(random.fill(target)).toBe(target);
      const bytes = new Uint8Array(target.buffer, target.byteOffset, target.byteLength);
      // A byte keeps its old value with probability 1/256: about 16 of 4096.
      expect(bytes.filter((b) => b === 0xaa).length).toBeLessThan(64);
    }
  });

  it('fills only the given part of a larger buffer', () => {
    const whole = Buffer.alloc(96, 0);
    random.fill(whole.subarray(32, 64));
    expect(whole.subarray(0, 32).every((b) => b === 0)).toBe(true);
    expect(whole.subarray(64).every((b) => b === 0)).toBe(true);
    expect(whole.subarray(32, 64).some((b) => b !== 0)).toBe(true);
  });

  it.each([-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_DRAW_BYTES + 1, '16', null, undefined])(
    'rejects the size %p',
    (size) => {
      expectError(() => random.bytes(size as number), FastpathError, {
        code: 'ERR_SECURE_RANDOM_INVALID_SIZE',
      });
    },
  );

  it.each([[{}], [[1, 2, 3]], [null], [new ArrayBuffer(8)], ['string']])(
    'rejects the target %p',
    (target) => {
      expectError(() => random.fill(target as never), FastpathError, {
        code: 'ERR_SECURE_RANDOM_INVALID_TARGET',
      });
    },
  );

  it('refuses to draw after close, leaving no random-looking bytes behind', () => {
    random.close();
    expectError(() => random.bytes(16), FastpathError, { code: 'ERR_SECURE_RANDOM_CLOSED' });
    const target = Buffer.alloc(16, 0xaa);
    expectError(() => random.fill(target), FastpathError, { code: 'ERR_SECURE_RANDOM_CLOSED' });
    expect(target.every((b) => b === 0)).toBe(true);
  });
});
