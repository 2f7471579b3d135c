import { BenchmarkUsageError } from '../../harness/index.js';
import { DEFAULT_LOCKS_SETTINGS, parseLocksFlags, QUICK_LOCKS_SETTINGS } from './locks-settings.js';

describe('parseLocksFlags', () => {
  it('gives the defaults, and shorter rounds with --quick', () => {
    expect(parseLocksFlags([], false)).toEqual(DEFAULT_LOCKS_SETTINGS);
    expect(parseLocksFlags([], true)).toEqual({ ...DEFAULT_LOCKS_SETTINGS, ...QUICK_LOCKS_SETTINGS });
  });

  it('lets flags override --quick', () => {
    expect(parseLocksFlags(['--rounds', '9', '--round-ms=20'], true)).toMatchObject({
      rounds: 9,
      roundMs: 20,
      warmupMs: 60,
    });
  });

  it('always keeps the async-mutex baseline', () => {
    expect(parseLocksFlags(['--variants', 'read,write'], false).variants).toEqual([
      'async-mutex',
      'read',
      'write',
    ]);
  });

  it('rejects unknown flags, locks and modes', () => {
    expect(() => parseLocksFlags(['--threads', '4'], false)).toThrow(BenchmarkUsageError);
    expect(() => parseLocksFlags(['--threads', '4'], false)).toThrow(
      /locks: unknown flag --threads\. Flags of locks: --rounds/,
    );
    expect(() => parseLocksFlags(['--variants', 'spinlock'], false)).toThrow(/unknown item "spinlock"/);
    expect(() => parseLocksFlags(['--modes', 'busy'], false)).toThrow(/choose from uncontended, contended/);
    expect(() => parseLocksFlags(['--concurrency', '1'], false)).toThrow(
      /--concurrency must be an integer from 2 to/,
    );
  });
});
