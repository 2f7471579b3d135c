import { describe, expect, it } from '@jest/globals';
import { BenchmarkUsageError } from '../../harness/index.js';
import { estimateRunMs, largeReadCase, parseOzoneTdeFlags } from './ozone-tde-settings.js';

describe('ozone-tde flags', () => {
  it('defaults: the embedded cluster, every key provider, 16 clients; --quick shorter', () => {
    const s = parseOzoneTdeFlags([], false);
    expect(s).toMatchObject({
      cluster: 'embedded',
      kms: ['hadoop', 'original', 'fixed'],
      clients: 16,
      files: 512,
      fileBytes: 16 * 1024,
      rounds: 3,
      windowMs: 15_000,
      largeBytes: 64 * 1024 * 1024,
      java: false,
    });
    const q = parseOzoneTdeFlags([], true);
    expect(q).toMatchObject({ rounds: 1, windowMs: 4000, files: 64, largeBytes: 16 * 1024 * 1024 });
    expect(estimateRunMs(q)).toBeLessThan(estimateRunMs(s));
  });

  it('takes the cluster, the providers and the sizes; Java only on the real cluster', () => {
    const s = parseOzoneTdeFlags(
      ['--cluster', 'real', '--kms', 'fixed,hadoop', '--file-size', '4KiB', '--large-size', '0'],
      false,
    );
    expect(s).toMatchObject({
      cluster: 'real',
      kms: ['fixed', 'hadoop'],
      fileBytes: 4096,
      largeBytes: 0,
      java: true,
    });
    expect(parseOzoneTdeFlags(['--cluster', 'real', '--no-java'], false).java).toBe(false);
  });

  it('rejects bad flags before anything runs', () => {
    for (const args of [
      ['--kms', 'vault'],
      ['--cluster', 'embedded,real'],
      ['--no-java'],
      ['--clients', '0'],
      ['--window-seconds', 'soon'],
      ['--bogus'],
    ])
      expect(() => parseOzoneTdeFlags(args, false)).toThrow(BenchmarkUsageError);
  });

  it('measures the large reads in the first fastpath-kms case, none with --large-size 0', () => {
    expect(largeReadCase(parseOzoneTdeFlags([], false))).toBe('original');
    expect(largeReadCase(parseOzoneTdeFlags(['--kms', 'hadoop'], false))).toBe('hadoop');
    expect(largeReadCase(parseOzoneTdeFlags(['--large-size', '0'], false))).toBeNull();
  });
});
