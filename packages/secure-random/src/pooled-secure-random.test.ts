import { FastpathError, InvalidOptionError, ManualClock } from '@fastpath/core';
import fc from 'fast-check';
import {
  DEFAULT_POOLED_SECURE_RANDOM_OPTIONS,
  inspectPool,
  PooledSecureRandom,
} from './pooled-secure-random.js';
import { waitFor, expectError } from '@fastpath/test-support';

const opened: PooledSecureRandom[] = [];
function pooled(options: ConstructorParameters<typeof PooledSecureRandom>[0] = {}): PooledSecureRandom {
  const random = new PooledSecureRandom(options);
  opened.push(random);
  return random;
}
afterEach(() => {
  for (const random of opened.splice(0)) random.close();
});

function isZero(bytes: Uint8Array): boolean {
  return bytes.every((b) => b === 0);
}

function sorted(bytes: Uint8Array): number[] {
  return [...bytes].sort((a, b) => a - b);
}

describe('PooledSecureRandom', () => {
  it('erases exactly what it serves, and serves what was in the pool', () => {
    const random = pooled();
    random.bytes(16); // first refill
    const before = inspectPool(random);
    const pool = before.pool.slice();
    const start = before.pos;

    const key = random.bytes(16);
    const odd = random.fill(new Uint8Array(5));
    const medium = random.bytes(100);

    const after = inspectPool(random);
    expect(after.refills).toBe(1);
    // Served bytes come from the pool (in some order within each 32-bit word)...
    expect(sorted(key)).toEqual(sorted(pool.subarray(start, start + 16)));
    expect(sorted(odd.subarray(0, 4))).toEqual(sorted(pool.subarray(start + 16, start + 20)));
    expect([...pool.subarray(start + 20, start + 24)]).toContain(odd[4]);
    expect(Buffer.compare(medium, pool.subarray(start + 24, start + 124))).toBe(0);
    // ...whole words are consumed, so the position stays aligned...
    expect(after.pos).toBe(start + 16 + 8 + 100);
    expect(after.pos % 4).toBe(0);
    // ...everything up to the position is zero, and what lies beyond it is untouched.
    expect(isZero(after.pool.subarray(0, after.pos))).toBe(true);
    expect(Buffer.compare(after.pool.subarray(after.pos), pool.subarray(after.pos))).toBe(0);
    expect(isZero(after.pool.subarray(after.pos))).toBe(false);
  });

  it('hands out copies: a returned buffer never changes after later draws or refills', () => {
    const random = pooled({ poolBytes: 256, directMinBytes: 256 });
    const key = random.bytes(16);
    const filled = random.fill(Buffer.alloc(32));
    const keyCopy = Buffer.from(key);
    const filledCopy = Buffer.from(filled);

    for (let i = 0; i < 1000; i++) random.bytes(1 + (i % 64));

    expect(inspectPool(random).refills).toBeGreaterThan(100);
    expect(key).toEqual(keyCopy);
    expect(filled).toEqual(filledCopy);
    const pool = inspectPool(random).pool;
    expect(key.buffer).not.toBe(pool.buffer);
    expect(filled.buffer).not.toBe(pool.buffer);
  });

  it('returns buffers that own their memory (no pool view, no shared slab)', () => {
    const random = pooled();
    for (const size of [1, 16, 64, 65, 1000, 4096]) {
      const bytes = random.bytes(size);
      expect(bytes.byteOffset).toBe(0);
      expect(bytes.buffer.byteLength).toBe(size);
    }
  });

  it('sends requests of directMinBytes or more straight to the system generator', () => {
    const random = pooled({ directMinBytes: 1024 });
    random.bytes(16);
    const before = inspectPool(random);
    const pool = before.pool.slice();

    const big = random.bytes(1024);
    const huge = random.fill(new Uint8Array(1024 * 1024));

    const after = inspectPool(random);
    expect(after.pos).toBe(before.pos);
    expect(after.refills).toBe(before.refills);
    expect(Buffer.compare(after.pool, pool)).toBe(0);
    expect(isZero(big)).toBe(false);
    expect(isZero(huge.subarray(huge.length - 1024))).toBe(false);

    random.bytes(1023); // one byte less goes through the pool
    expect(inspectPool(random).pos).toBe(before.pos + 1024);
  });

  it('refills when the pool runs out, and only then', () => {
    const random = pooled({ poolBytes: 1024 });
    for (let i = 0; i < 64; i++) random.bytes(16);
    expect(inspectPool(random)).toMatchObject({ refills: 1, pos: 1024 });
    random.bytes(16);
    expect(inspectPool(random)).toMatchObject({ refills: 2, pos: 16 });
  });

  it('discards bytes older than maxPoolAgeMs at the next checkpoint', () => {
    const clock = new ManualClock(0);
    const random = pooled({ maxPoolAgeMs: 1000, clock });
    random.bytes(16);
    // Crossing a checkpoint (every 4 KiB) while fresh keeps the pool.
    for (let i = 0; i < 300; i++) random.bytes(16);
    expect(inspectPool(random).refills).toBe(1);

    clock.advance(1000);
    for (let i = 0; i < 300; i++) random.bytes(16);
    const state = inspectPool(random);
    expect(state.refills).toBe(2);
    expect(state.pos).toBeLessThan(300 * 16);
  });

  it('wipes and releases an idle pool once it is older than maxPoolAgeMs', async () => {
    const random = pooled({ maxPoolAgeMs: 20 });
    random.bytes(16);
    const pool = inspectPool(random).pool;
    expect(inspectPool(random).expiryArmed).toBe(true);

    await waitFor('the idle pool to be wiped and released', () => inspectPool(random).end === 0, {
      intervalMs: 5,
    });

    expect(isZero(pool)).toBe(true);
    expect(inspectPool(random)).toMatchObject({ pos: 0, end: 0, expiryArmed: false });
    expect(inspectPool(random).pool.length).toBe(0);
    random.bytes(16);
    expect(inspectPool(random).refills).toBe(2);
  });

  it('keeps every invariant over any sequence of draw sizes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 200 }),
        fc.boolean(),
        (sizes, useFill) => {
          const random = new PooledSecureRandom({ poolBytes: 512, directMinBytes: 256 });
          try {
            const seen = new Set<string>();
            for (const size of sizes) {
              const out = useFill ? random.fill(new Uint8Array(size)) : random.bytes(size);
              expect(out.length).toBe(size);
              if (size >= 8) {
                const hex = Buffer.from(out).toString('hex');
                expect(seen.has(hex)).toBe(false);
                seen.add(hex);
              }
              const state = inspectPool(random);
              expect(state.pos % 4).toBe(0);
              expect(state.pos).toBeLessThanOrEqual(state.end);
              expect(isZero(state.pool.subarray(0, state.pos))).toBe(true);
            }
          } finally {
            random.close();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('wipes the pool on close and refuses later draws', () => {
    const random = pooled();
    random.bytes(16);
    const pool = inspectPool(random).pool;
    random.close();
    random.close();

    expect(isZero(pool)).toBe(true);
    expectError(() => random.bytes(16), FastpathError, { code: 'ERR_SECURE_RANDOM_CLOSED' });
    const target = Buffer.alloc(16, 0xaa);
    expect(() => random.fill(target)).toThrow(FastpathError);
    expect(isZero(target)).toBe(true);
  });

  it('is disposable', () => {
    let kept: PooledSecureRandom | undefined;
    {
      using random = new PooledSecureRandom();
      random.bytes(1);
      kept = random;
    }
    expectError(() => kept?.bytes(1), FastpathError, { code: 'ERR_SECURE_RANDOM_CLOSED' });
  });

  it('does not buffer anything unless a draw asks for it', () => {
    const random = pooled();
    expect(inspectPool(random)).toMatchObject({
      refills: 0,
      end: 0,
      expiryArmed: false,
      buildingSnapshot: false,
    });
    expect(inspectPool(random).pool.length).toBe(0);
  });

  it.each([
    ['poolBytes', { poolBytes: 128 }],
    ['poolBytes', { poolBytes: 1000 }],
    ['poolBytes', { poolBytes: 32 * 1024 * 1024 }],
    ['maxPoolAgeMs', { maxPoolAgeMs: 0 }],
    ['maxPoolAgeMs', { maxPoolAgeMs: Number.NaN }],
    ['directMinBytes', { directMinBytes: 0 }],
    ['directMinBytes', { poolBytes: 1024, directMinBytes: 2048 }],
    ['clock', { clock: {} as ManualClock }],
  ])('rejects a bad %s', (option, options) => {
    expect(() => new PooledSecureRandom(options)).toThrow(InvalidOptionError);
    expect(expectError(() => new PooledSecureRandom(options), FastpathError)).toMatchObject({ option });
  });

  it('documents its defaults', () => {
    expect(DEFAULT_POOLED_SECURE_RANDOM_OPTIONS).toMatchObject({
      poolBytes: 16384,
      maxPoolAgeMs: 1000,
      directMinBytes: 4096,
    });
    expect(Object.isFrozen(DEFAULT_POOLED_SECURE_RANDOM_OPTIONS)).toBe(true);
  });
});
