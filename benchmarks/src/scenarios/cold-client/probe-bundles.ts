// Builds the probes as plain CommonJS files that `node` runs with no loader, so a round's
// process pays what a user's process pays. `modules`: fastpath's own packages compiled into the
// file, every npm dependency loaded from node_modules as usual (what an installed client loads,
// give or take fastpath's ~30 files). `single`: everything in one file but the native CRC32C
// addon. Where they are built: harness/bundle-dir.ts.
import { dirname } from 'node:path';
import { build } from 'esbuild';
import {
  chooseBundleDir,
  NODE_BUNDLE_OPTIONS,
  npmExternal,
  type BundleDir,
} from '../../harness/bundle-dir.js';

export interface ProbeBundles {
  modules: string;
  single: string;
  breakdown: string;
  codeCacheRunner: string;
}

/** A package every probe bundle loads from node_modules; resolving it shows the folder works. */
const PROBE_NPM_DEPENDENCY = '@grpc/grpc-js';

/** The results folder's `probes/` if the bundles' npm dependencies resolve from there, else a scratch folder. */
export function chooseProbeBuildDir(resultsProbeDir: string, packageDir: string): BundleDir {
  return chooseBundleDir(resultsProbeDir, packageDir, 'cold-client', PROBE_NPM_DEPENDENCY);
}

export async function buildProbeBundles(sourceDir: string, outDir: string): Promise<ProbeBundles> {
  const common = {
    ...NODE_BUNDLE_OPTIONS,
    conditions: [...NODE_BUNDLE_OPTIONS.conditions],
    format: 'cjs' as const,
    absWorkingDir: dirname(sourceDir),
  };
  const out: ProbeBundles = {
    modules: `${outDir}/probe-modules.cjs`,
    single: `${outDir}/probe-single.cjs`,
    breakdown: `${outDir}/breakdown.cjs`,
    codeCacheRunner: `${outDir}/code-cache-runner.cjs`,
  };
  await build({
    ...common,
    entryPoints: [`${sourceDir}/cold-client-probe.ts`],
    outfile: out.modules,
    plugins: [npmExternal],
  });
  await build({
    ...common,
    entryPoints: [`${sourceDir}/cold-start-breakdown.ts`],
    outfile: out.breakdown,
    plugins: [npmExternal],
  });
  await build({
    ...common,
    entryPoints: [`${sourceDir}/code-cache-runner.ts`],
    outfile: out.codeCacheRunner,
    plugins: [npmExternal],
  });
  await build({
    ...common,
    entryPoints: [`${sourceDir}/cold-client-probe.ts`],
    outfile: out.single,
    external: ['@node-rs/crc32'],
  });
  return out;
}
