import { randomFillSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidOptionError, ManualClock, FastpathError } from '@fastpath/core';
import fc from 'fast-check';
import { DeviceSecureRandom } from './device-secure-random.js';
import { allocSessionKeyBuffers, fillSessionKeys, type SessionKeyBuffers } from './fill-session-keys.js';
import { defaultSecureRandom } from './generate-secure-random.js';
import { NodeCryptoSecureRandom } from './node-crypto-secure-random.js';
import { inspectPool, PooledSecureRandom } from './pooled-secure-random.js';
import { InvalidDrawTargetError } from './secure-random-errors.js';
import type { SecureRandom } from './secure-random.js';
import { expectError } from '@fastpath/test-support';

const PATTERN = 0xa5;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'secure-random-fill-keys-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const opened: SecureRandom[] = [];
function track<T extends SecureRandom>(random: T): T {
  opened.push(random);
  return random;
}
afterEach(() => {
  for (const random of opened.splice(0)) random.close();
});

function partsOf(keys: SessionKeyBuffers): Uint8Array[] {
  return [keys.inKey, keys.inIv, keys.outKey, keys.outIv];
}

function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

function sorted(bytes: Uint8Array): number[] {
  return [...bytes].sort((a, b) => a - b);
}

function isZero(bytes: Uint8Array): boolean {
  return bytes.every((b) => b === 0);
}

/**
 * Four parts carved out of one patterned buffer, with guard bytes before, between and after them,
 * so that a write outside the parts shows.
 */
function guarded(keyBytes: number): { parent: Buffer; keys: SessionKeyBuffers; guards: Buffer[] } {
  const gap = 8;
  const sizes = [keyBytes, 16, keyBytes, 16];
  const parent = Buffer.alloc(
    sizes.reduce((sum, size) => sum + size + gap, gap),
    PATTERN,
  );
  const parts: Buffer[] = [];
  const guards: Buffer[] = [];
  let offset = 0;
  for (const size of sizes) {
    guards.push(parent.subarray(offset, offset + gap));
    offset += gap;
    parts.push(parent.subarray(offset, offset + size));
    offset += size;
  }
  guards.push(parent.subarray(offset));
  const [inKey, inIv, outKey, outIv] = parts as [Buffer, Buffer, Buffer, Buffer];
  return { parent, keys: { inKey, inIv, outKey, outIv }, guards };
}

function deviceFile(name: string, content: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const sources: [string, () => SecureRandom | undefined][] = [
  ['the default source', () => undefined],
  ['a pooled instance', () => track(new PooledSecureRandom())],
  ['a 256-byte pool', () => track(new PooledSecureRandom({ poolBytes: 256 }))],
  ['node-crypto', () => track(new NodeCryptoSecureRandom())],
  ['the device', () => track(new DeviceSecureRandom())],
];

describe.each(sources)('fillSessionKeys from %s', (_name, create) => {
  it.each([16, 24, 32] as const)(
    'fills exactly the four parts (%i-byte keys) and returns the target',
    (keyBytes) => {
      const source = create();
      const { parent, keys, guards } = guarded(keyBytes);
      const before = Buffer.from(parent);

      expect(fillSessionKeys(keys, source)).toBe(keys);

      for (const guard of guards) expect(guard.every((b) => b === PATTERN)).toBe(true);
      const parts = partsOf(keys);
      // A byte keeps the pattern with probability 1/256: never a whole part, rarely more than a few.
      for (const part of parts)
        expect(part.filter((b) => b === PATTERN).length).toBeLessThan(part.length / 2);
      expect(new Set(parts.map(hexOf)).size).toBe(4);
      expect(parent.equals(before)).toBe(false);
    },
  );

  it('gives different bytes every time, in every part', () => {
    const source = create();
    const keys = allocSessionKeyBuffers();
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      fillSessionKeys(keys, source);
      for (const part of partsOf(keys)) {
        expect(isZero(part)).toBe(false);
        seen.add(hexOf(part));
      }
    }
    expect(seen.size).toBe(2000);
  });
});

describe('fillSessionKeys from a pool', () => {
  it('serves the four parts from consecutive pool bytes and erases them', () => {
    const random = track(new PooledSecureRandom());
    random.bytes(16); // first refill
    const before = inspectPool(random);
    const pool = before.pool.slice();
    const start = before.pos;
    const keys = allocSessionKeyBuffers(32);

    fillSessionKeys(keys, random);

    const after = inspectPool(random);
    expect(after.refills).toBe(1);
    expect(after.pos).toBe(start + 96);
    let offset = start;
    for (const part of partsOf(keys)) {
      // Whole 32-bit words, in some byte order within each word.
      for (let w = 0; w < part.length; w += 4) {
        expect(sorted(part.subarray(w, w + 4))).toEqual(sorted(pool.subarray(offset + w, offset + w + 4)));
      }
      offset += part.length;
    }
    expect(isZero(after.pool.subarray(0, after.pos))).toBe(true);
    expect(Buffer.compare(after.pool.subarray(after.pos), pool.subarray(after.pos))).toBe(0);
  });

  it('draws from the module default pool when no source is given', () => {
    defaultSecureRandom.bytes(4);
    const before = inspectPool(defaultSecureRandom);
    fillSessionKeys(allocSessionKeyBuffers());
    const after = inspectPool(defaultSecureRandom);
    if (after.refills === before.refills) {
      expect(after.pos).toBe(before.pos + 64);
    } else {
      expect(after.pos).toBe(64);
    }
    expect(isZero(after.pool.subarray(0, after.pos))).toBe(true);
  });

  it('refills when a set no longer fits, and never serves a set across two fills', () => {
    const random = track(new PooledSecureRandom({ poolBytes: 256 }));
    const keys = allocSessionKeyBuffers(24); // 80 bytes a set: 3 sets per 256-byte pool
    fillSessionKeys(keys, random);
    fillSessionKeys(keys, random);
    fillSessionKeys(keys, random);
    expect(inspectPool(random)).toMatchObject({ refills: 1, pos: 240 });
    fillSessionKeys(keys, random);
    const state = inspectPool(random);
    expect(state).toMatchObject({ refills: 2, pos: 80 });
    expect(isZero(state.pool.subarray(0, 80))).toBe(true);
  });

  it('checks the pool age at its checkpoints, as single draws do', () => {
    const run = (advanceMs: number): number => {
      const clock = new ManualClock(0);
      const random = track(new PooledSecureRandom({ poolBytes: 8192, maxPoolAgeMs: 1000, clock }));
      const keys = allocSessionKeyBuffers();
      fillSessionKeys(keys, random); // refill; the first checkpoint is 4 KiB (64 sets) away
      clock.advance(advanceMs);
      for (let i = 1; i < 64; i++) fillSessionKeys(keys, random);
      expect(inspectPool(random).refills).toBe(1);
      fillSessionKeys(keys, random); // crosses the checkpoint
      return inspectPool(random).refills;
    };
    expect(run(999)).toBe(1);
    expect(run(1000)).toBe(2);
  });

  it('sends parts of directMinBytes or more straight to the system generator', () => {
    const random = track(new PooledSecureRandom({ directMinBytes: 16 }));
    const keys = fillSessionKeys(allocSessionKeyBuffers(), random);
    expect(inspectPool(random)).toMatchObject({ refills: 0, pos: 0 });
    expect(new Set(partsOf(keys).map(hexOf)).size).toBe(4);
  });

  it('keeps the pool invariants when sets and single draws interleave', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(16 as const, 24 as const, 32 as const).map((k) => ({ keyBytes: k })),
            fc.integer({ min: 1, max: 300 }),
          ),
          {
            maxLength: 100,
          },
        ),
        (draws) => {
          const random = new PooledSecureRandom({ poolBytes: 512, directMinBytes: 256 });
          try {
            for (const draw of draws) {
              if (typeof draw === 'number') {
                const bytes = random.bytes(draw);
                expect(bytes.length).toBe(draw);
                if (draw >= 8) expect(isZero(bytes)).toBe(false);
              } else {
                const keys = fillSessionKeys(allocSessionKeyBuffers(draw.keyBytes), random);
                for (const part of partsOf(keys)) expect(isZero(part)).toBe(false);
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
});

describe('fillSessionKeys order and failures', () => {
  it('fills in Hadoop order (in-key, in-IV, out-key, out-IV) from the given source', () => {
    const content = randomFillSync(Buffer.alloc(8192));
    const source = track(new DeviceSecureRandom({ path: deviceFile('device', content) }));
    const keys = fillSessionKeys(allocSessionKeyBuffers(32), source);
    expect(Buffer.concat(partsOf(keys))).toEqual(content.subarray(0, 96));
  });

  it('zeroes all four parts when the source fails part-way', () => {
    // 40 bytes, read 8 at a time: the in-key, the in-IV and half the out-key come through, then the
    // device ends.
    const path = deviceFile('short', randomFillSync(Buffer.alloc(40)));
    const source = track(new DeviceSecureRandom({ path, reservoirBytes: 8 }));
    const { keys } = guarded(16);
    expectError(() => fillSessionKeys(keys, source), FastpathError, { code: 'ERR_SECURE_RANDOM_SHORT_READ' });
    for (const part of partsOf(keys)) expect(isZero(part)).toBe(true);
  });

  it.each([
    ['pooled', () => new PooledSecureRandom()],
    ['node-crypto', () => new NodeCryptoSecureRandom()],
    ['device', () => new DeviceSecureRandom()],
  ] as [string, () => SecureRandom][])(
    'refuses a closed %s source and zeroes all four parts',
    (_name, create) => {
      const source = create();
      source.close();
      const { keys } = guarded(16);
      expectError(() => fillSessionKeys(keys, source), FastpathError, { code: 'ERR_SECURE_RANDOM_CLOSED' });
      for (const part of partsOf(keys)) expect(isZero(part)).toBe(true);
    },
  );

  const good = (): Record<keyof SessionKeyBuffers, unknown> => ({
    inKey: Buffer.alloc(16, PATTERN),
    inIv: Buffer.alloc(16, PATTERN),
    outKey: Buffer.alloc(16, PATTERN),
    outIv: Buffer.alloc(16, PATTERN),
  });
  const shared = Buffer.alloc(16, PATTERN);
  const bad: [string, Record<keyof SessionKeyBuffers, unknown>, RegExp][] = [
    [
      'a 20-byte key',
      { ...good(), inKey: Buffer.alloc(20), outKey: Buffer.alloc(20) },
      /inKey .* 16, 24 or 32 bytes, got Buffer of 20 bytes/,
    ],
    [
      'keys of two sizes',
      { ...good(), outKey: Buffer.alloc(32) },
      /outKey .* 16 bytes, like inKey, got Buffer of 32 bytes/,
    ],
    ['a 12-byte IV', { ...good(), inIv: new Uint8Array(12) }, /inIv .* 16 bytes, got Uint8Array of 12 bytes/],
    ['an empty IV', { ...good(), outIv: new Uint8Array(0) }, /outIv .* 16 bytes/],
    ['a DataView', { ...good(), inKey: new DataView(new ArrayBuffer(16)) }, /got DataView of 16 bytes/],
    ['a Uint32Array', { ...good(), outIv: new Uint32Array(4) }, /got Uint32Array of 16 bytes/],
    ['a missing part', { ...good(), inIv: undefined }, /inIv .* got undefined/],
    ['a number', { ...good(), outKey: 16 }, /outKey .* got 16/],
    ['the same view twice', { ...good(), inKey: shared, outKey: shared }, /four distinct views/],
    ['an IV used as a key', { ...good(), inIv: shared, outKey: shared }, /four distinct views/],
  ];
  it.each(bad)('rejects %s with a typed error, before writing anything', (_name, target, message) => {
    const random = track(new PooledSecureRandom());
    const views = Object.values(target).filter((part): part is ArrayBufferView => ArrayBuffer.isView(part));
    const before = views.map((view) =>
      Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('hex'),
    );
    const attempt = (): unknown => fillSessionKeys(target as unknown as SessionKeyBuffers, random);
    expect(attempt).toThrow(InvalidDrawTargetError);
    expectError(attempt, FastpathError, { code: 'ERR_SECURE_RANDOM_INVALID_TARGET' });
    expect(attempt).toThrow(message);
    const after = views.map((view) =>
      Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('hex'),
    );
    expect(after).toEqual(before);
    expect(inspectPool(random).refills).toBe(0);
  });
});

describe('allocSessionKeyBuffers', () => {
  it.each([16, 24, 32] as const)(
    'makes four zeroed parts for %i-byte keys over one private block',
    (keyBytes) => {
      const keys = allocSessionKeyBuffers(keyBytes);
      const parts = partsOf(keys);
      expect(parts.map((p) => p.length)).toEqual([keyBytes, 16, keyBytes, 16]);
      for (const part of parts) {
        expect(Buffer.isBuffer(part)).toBe(true);
        expect(isZero(part)).toBe(true);
        expect(part.buffer).toBe(keys.inKey.buffer);
      }
      expect(keys.inKey.buffer.byteLength).toBe(2 * keyBytes + 32);
      expect(parts.map((p) => p.byteOffset)).toEqual([0, keyBytes, keyBytes + 16, 2 * keyBytes + 16]);
    },
  );

  it('gives every call its own memory', () => {
    const a = allocSessionKeyBuffers();
    const b = allocSessionKeyBuffers();
    expect(a.inKey.buffer).not.toBe(b.inKey.buffer);
  });

  it('defaults to 16-byte keys and rejects key sizes AES does not have', () => {
    expect(allocSessionKeyBuffers().inKey.length).toBe(16);
    expect(() => allocSessionKeyBuffers(20 as never)).toThrow(InvalidOptionError);
    expect(expectError(() => allocSessionKeyBuffers(20 as never), FastpathError)).toMatchObject({
      option: 'keyBytes',
    });
  });
});
