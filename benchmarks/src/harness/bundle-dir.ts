// Bundles that `node` runs without a loader, so a measured process pays what a user's process
// pays (the TypeScript loader names every function it creates, closures made per request
// included). The bundles load their npm dependencies from node_modules, found from the bundle's
// own folder upwards: they go in the results folder when that resolves them (a results folder
// inside the repository), otherwise in a scratch folder inside the benchmarks package, removed
// after the run, so `--output` may point anywhere.
import { mkdirSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';

/**
 * What every bundle of a measured process is built with: one file for Node 20 from fastpath's
 * TypeScript sources (the `development` condition), warnings shown; each adds its format, entry
 * and which imports stay outside.
 */
export const NODE_BUNDLE_OPTIONS = Object.freeze({
  bundle: true,
  platform: 'node',
  target: 'node20',
  conditions: ['development'],
  logLevel: 'warning',
} satisfies BuildOptions);

/** esbuild: fastpath's own packages compiled into the bundle, every other bare import left to node_modules. */
export const npmExternal: Plugin = {
  name: 'npm-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@fastpath/') || args.path.startsWith('node:')
        ? undefined
        : { path: args.path, external: true },
    );
  },
};

/** Where bundles are built, and how to get rid of the folder afterwards. */
export interface BundleDir {
  dir: string;
  /** True when `dir` is a scratch folder (removed by `remove`), not inside the results folder. */
  scratch: boolean;
  remove(): void;
}

/**
 * `resultsDir` if `probeDependency` (an npm package the bundles load) resolves from there, else a
 * fresh scratch folder `packageDir/.probes/<prefix>-*` (git ignores `.probes`).
 */
export function chooseBundleDir(
  resultsDir: string,
  packageDir: string,
  prefix: string,
  probeDependency: string,
): BundleDir {
  mkdirSync(resultsDir, { recursive: true });
  if (resolvesFrom(resultsDir, probeDependency)) return { dir: resultsDir, scratch: false, remove: () => {} };
  const scratchRoot = join(packageDir, '.probes');
  mkdirSync(scratchRoot, { recursive: true });
  const dir = mkdtempSync(join(scratchRoot, `${prefix}-`));
  const remove = (): void => {
    rmSync(dir, { recursive: true, force: true });
    try {
      rmdirSync(scratchRoot); // only when no other run's scratch folder is left in it
    } catch {
      // another run still uses it
    }
  };
  return { dir, scratch: true, remove };
}

function resolvesFrom(dir: string, dependency: string): boolean {
  try {
    createRequire(join(dir, 'probe.cjs')).resolve(dependency);
    return true;
  } catch {
    return false;
  }
}
