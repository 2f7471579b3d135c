import { randomFillSync } from 'node:crypto';
import {
  DeviceSecureRandom,
  NodeCryptoSecureRandom,
  PooledSecureRandom,
  type SecureRandom,
} from '@fastpath/secure-random';
import { assessRandomness, failedStatistics } from './support/randomness-statistics.js';

const SAMPLE_BYTES = 4 * 1024 * 1024;
// Mixed draw sizes, so every copy path (word loop with and without a partial word, native copy,
// direct fill) and many refills contribute to the sample.
const DRAW_SIZES = [16, 1, 7, 32, 64, 100, 3, 24, 500, 16, 5000];

type Filler = Pick<SecureRandom, 'fill'>;

function sample(random: Filler, total = SAMPLE_BYTES): Uint8Array {
  const out = new Uint8Array(total);
  for (let off = 0, i = 0; off < total; i++) {
    const size = Math.min(DRAW_SIZES[i % DRAW_SIZES.length]!, total - off);
    random.fill(out.subarray(off, off + size));
    off += size;
  }
  return out;
}

/** A generator that produces its bytes one at a time from `next`. */
function byteByByte(next: () => number): Filler {
  return {
    fill<T extends ArrayBufferView>(target: T): T {
      const bytes = new Uint8Array(target.buffer, target.byteOffset, target.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = next();
      return target;
    },
  };
}

/** The classic pool bug: filled once from the real CSPRNG, then served round and round. */
function poolNeverRefilled(): Filler {
  const pool = randomFillSync(new Uint8Array(16384));
  let pos = 0;
  return byteByByte(() => pool[pos++ % pool.length]!);
}

/** Every random byte served twice in a row. */
function eachByteTwice(): Filler {
  const source = randomFillSync(new Uint8Array(SAMPLE_BYTES / 2));
  let i = 0;
  return byteByByte(() => source[(i++ >>> 1) % source.length]!);
}

/** Every random bit written twice (four random bits per byte). */
function eachBitTwice(): Filler {
  const source = randomFillSync(new Uint8Array(SAMPLE_BYTES));
  let i = 0;
  return byteByByte(() => {
    const nibble = source[i++ % source.length]! & 0x0f;
    let b = 0;
    for (let bit = 3; bit >= 0; bit--) b = (b << 2) | (((nibble >> bit) & 1) * 3);
    return b;
  });
}

/** A counter: perfectly even byte frequencies, no randomness at all. */
function counter(): Filler {
  let i = 0;
  return byteByByte(() => i++ & 0xff);
}

describe('distribution sanity on 4 MiB of output', () => {
  const generators: [string, () => SecureRandom][] = [
    ['pooled (defaults)', () => new PooledSecureRandom()],
    [
      'pooled (256-byte pool, thousands of refills)',
      () => new PooledSecureRandom({ poolBytes: 256, directMinBytes: 256 }),
    ],
    ['node-crypto', () => new NodeCryptoSecureRandom()],
    ['device (/dev/urandom)', () => new DeviceSecureRandom()],
  ];

  it.each(generators)('%s passes every statistic', (_name, create) => {
    const random = create();
    try {
      const report = assessRandomness(sample(random));
      expect(failedStatistics(report)).toEqual([]);
    } finally {
      random.close();
    }
  });

  // The same statistics, against generators that are broken on purpose: each must be caught,
  // by the statistic that targets its kind of failure.
  it.each([
    ['a pool that is never refilled', poolNeverRefilled, ['byteFrequencyZ', 'duplicateBlocks']],
    ['each byte served twice', eachByteTwice, ['repeatedByteZ']],
    ['each bit written twice', eachBitTwice, ['bitRunsZ']],
    ['a counter', counter, ['byteFrequencyZ', 'duplicateBlocks']],
  ] as const)('catches %s', (_name, create, mustFail) => {
    const failed = failedStatistics(assessRandomness(sample(create())));
    expect(failed).toEqual(expect.arrayContaining([...mustFail]));
  });
});
