import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startKmsProcess } from '@fastpath/kms-server/testing';
import { chooseBundleDir } from '../src/harness/bundle-dir.js';
import {
  buildKmsServerBundle,
  KMS_BUNDLE_NPM_DEPENDENCY,
  kmsServerBundleOnDemand,
} from '../src/scenarios/kms-http/kms-server-bundle.js';

// Jest runs from the package folder.
const packageDir = process.cwd();

describe('the fastpath-kms bundle the kms-http cases run', () => {
  it('runs under plain node, without the TypeScript loader, and serves the KMS', async () => {
    // A results folder outside the repository: the bundle goes to a scratch folder in the package.
    const dir = chooseBundleDir(
      path.join(tmpdir(), 'kms-bundle-test'),
      packageDir,
      'kms-bundle-test',
      KMS_BUNDLE_NPM_DEPENDENCY,
    );
    try {
      const kmsPackageDir = await buildKmsServerBundle(dir.dir, path.join(packageDir, 'src'));
      const bundle = readFileSync(path.join(kmsPackageDir, 'dist', 'cli-main.js'), 'utf8');
      // The loader's function naming (esbuild's keepNames) is what running from the bundle avoids.
      expect(bundle).not.toContain('__name(');
      await using kms = await startKmsProcess({
        packageDir: kmsPackageDir,
        env: { FASTPATH_KMS_KEYSTORE_PASSWORD: 'bundle-test', FASTPATH_KMS_LOG_LEVEL: 'silent' },
      });
      const argv = readFileSync(`/proc/${kms.pid}/cmdline`, 'utf8').split('\0');
      expect(argv[1]).toBe(path.join(kmsPackageDir, 'dist', 'cli-main.js'));
      expect(argv.some((a) => a.includes('tsx'))).toBe(false);
      const info = (await (await fetch(`${kms.url}/build-info`)).json()) as { name?: unknown };
      expect(info.name).toBe('@fastpath/kms-server');
      const created = await fetch(`${kms.url}/kms/v1/keys?user.name=hdfs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bundled', cipher: 'AES/CTR/NoPadding', length: 128 }),
      });
      expect(created.status).toBe(201);
    } finally {
      dir.remove();
    }
  });

  it('is built on demand: nothing until a case asks, then once for the whole run', async () => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'kms-bundle-demand-'));
    const resultsDir = path.join(scratch, 'results', 'kms-server-bundle');
    const logged: string[] = [];
    const bundle = kmsServerBundleOnDemand(resultsDir, packageDir, path.join(packageDir, 'src'), (line) =>
      logged.push(line),
    );
    try {
      // A run of Hadoop's KMS alone never asks: no folder, nothing logged, remove() is harmless.
      expect(existsSync(resultsDir)).toBe(false);
      const [first, second] = await Promise.all([bundle.packageDir(), bundle.packageDir()]);
      expect(second).toBe(first);
      expect(await bundle.packageDir()).toBe(first);
      expect(existsSync(path.join(first, 'dist', 'cli-main.js'))).toBe(true);
      expect(logged).toHaveLength(1);
      // Outside the repository the bundle is built in a scratch folder, which remove() deletes.
      expect(first.startsWith(path.join(packageDir, '.probes'))).toBe(true);
      bundle.remove();
      expect(existsSync(first)).toBe(false);
    } finally {
      bundle.remove();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
