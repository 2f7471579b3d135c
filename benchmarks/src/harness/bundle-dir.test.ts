import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { chooseBundleDir } from './bundle-dir.js';

// Jest runs in the benchmarks package (its rootDir).
const packageDir = process.cwd();

describe('chooseBundleDir', () => {
  it('builds in the results folder when the npm packages resolve from there', () => {
    const results = mkdtempSync(join(packageDir, 'results-probe-test-'));
    try {
      const chosen = chooseBundleDir(join(results, 'probes'), packageDir, 'probe-test', '@grpc/grpc-js');
      expect(chosen).toMatchObject({ dir: join(results, 'probes'), scratch: false });
      chosen.remove();
      expect(existsSync(join(results, 'probes'))).toBe(true);
    } finally {
      rmSync(results, { recursive: true, force: true });
    }
  });

  it('builds in a scratch folder inside the package, removed afterwards, for a results folder elsewhere', () => {
    const results = mkdtempSync(join(tmpdir(), 'cold-client-results-'));
    try {
      const chosen = chooseBundleDir(join(results, 'probes'), packageDir, 'probe-test', '@grpc/grpc-js');
      expect(chosen.scratch).toBe(true);
      expect(relative(join(packageDir, '.probes'), chosen.dir).startsWith('..')).toBe(false);
      expect(existsSync(chosen.dir)).toBe(true);
      chosen.remove();
      expect(existsSync(chosen.dir)).toBe(false);
    } finally {
      rmSync(results, { recursive: true, force: true });
    }
  });
});
