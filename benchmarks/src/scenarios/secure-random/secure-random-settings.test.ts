import { BenchmarkUsageError } from '../../harness/index.js';
import {
  DEFAULT_SECURE_RANDOM_SETTINGS,
  parseSecureRandomFlags,
  QUICK_SECURE_RANDOM_SETTINGS,
} from './secure-random-settings.js';

describe('parseSecureRandomFlags', () => {
  it('gives the defaults, and shorter rounds with --quick', () => {
    expect(parseSecureRandomFlags([], false)).toEqual(DEFAULT_SECURE_RANDOM_SETTINGS);
    expect(parseSecureRandomFlags([], true)).toEqual({
      ...DEFAULT_SECURE_RANDOM_SETTINGS,
      ...QUICK_SECURE_RANDOM_SETTINGS,
    });
    expect(DEFAULT_SECURE_RANDOM_SETTINGS).toMatchObject({ threadCounts: [1, 10], keyBytes: 16 });
  });

  it('lets flags override --quick', () => {
    expect(
      parseSecureRandomFlags(
        ['--rounds', '7', '--round-ms=300', '--threads', '4,1,4', '--key-bytes', '32'],
        true,
      ),
    ).toMatchObject({ rounds: 7, roundMs: 300, warmupMs: 150, threadCounts: [4, 1], keyBytes: 32 });
  });

  it('always keeps the Hadoop-style baseline', () => {
    expect(parseSecureRandomFlags(['--variants', 'pooled-per-worker'], false).variants).toEqual([
      'hadoop-style',
      'pooled-per-worker',
    ]);
  });

  it('takes bulk sizes as a list, or none', () => {
    expect(parseSecureRandomFlags(['--bulk-bytes', '65536,4096'], false).bulkBytes).toEqual([65536, 4096]);
    expect(parseSecureRandomFlags(['--bulk-bytes', 'none'], false).bulkBytes).toEqual([]);
  });

  it('rejects unknown flags and bad values', () => {
    expect(() => parseSecureRandomFlags(['--concurrency', '4'], false)).toThrow(BenchmarkUsageError);
    expect(() => parseSecureRandomFlags(['--concurrency', '4'], false)).toThrow(
      /secure-random: unknown flag --concurrency\. Flags of secure-random: --rounds/,
    );
    expect(() => parseSecureRandomFlags(['--variants', 'sha1prng'], false)).toThrow(
      /unknown item "sha1prng"/,
    );
    expect(() => parseSecureRandomFlags(['--threads', '0'], false)).toThrow(
      /--threads must be an integer from 1/,
    );
    expect(() => parseSecureRandomFlags(['--threads', '1,x'], false)).toThrow(BenchmarkUsageError);
    expect(() => parseSecureRandomFlags(['--key-bytes', '20'], false)).toThrow(/16, 24 or 32/);
    expect(() => parseSecureRandomFlags(['--bulk-bytes', '0'], false)).toThrow(/--bulk-bytes must be/);
  });
});
