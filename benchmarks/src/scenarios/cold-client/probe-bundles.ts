// Builds the probes as plain CommonJS files that `node` runs with no loader, so a round's
// process pays what a user's process pays. `modules`: fastpath's own packages compiled into the
// file, every npm dependency loaded from node_modules as usual (what an installed client loads,
// give or take fastpath's ~30 files). `single`: everything in one file but the native CRC32C
// addon. The bundles load their npm dependencies from node_modules, found from the bundle's own
// folder upwards: they go in the results folder when that resolves them (a results folder inside
// the repository), otherwise in a scratch folder inside the benchmarks package, removed after the
// run, so `--output` may point anywhere.
import { mkdirSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build, type Plugin } from 'esbuild';

export interface ProbeBundles {
  modules: string;
  single: string;
  breakdown: string;
  codeCacheRunner: string;
}

// Bare imports other than fastpath's own are left to node_modules.
const npmExternal: Plugin = {
  name: 'npm-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@fastpath/') || args.path.startsWith('node:')
        ? undefined
        : { path: args.path, external: true },
    );
  },
};

/** Where the probe bundles are built, and how to get rid of the folder afterwards. */
export interface ProbeBuildDir {
  dir: string;
  /** True when `dir` is a scratch folder (removed by `remove`), not the results folder. */
  scratch: boolean;
  remove(): void;
}

/** A package every probe bundle loads from node_modules; resolving it shows the folder works. */
const PROBE_NPM_DEPENDENCY = '@grpc/grpc-js';

/**
 * `resultsProbeDir` (the results folder's `probes/`) if the bundles' npm dependencies resolve from
 * there, else a fresh scratch folder under `packageDir/.probes/` (git ignores it).
 */
export function chooseProbeBuildDir(resultsProbeDir: string, packageDir: string): ProbeBuildDir {
  mkdirSync(resultsProbeDir, { recursive: true });
  if (resolvesFrom(resultsProbeDir)) return { dir: resultsProbeDir, scratch: false, remove: () => {} };
  const scratchRoot = join(packageDir, '.probes');
  mkdirSync(scratchRoot, { recursive: true });
  const dir = mkdtempSync(join(scratchRoot, 'cold-client-'));
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

function resolvesFrom(dir: string): boolean {
  try {
    createRequire(join(dir, 'probe.cjs')).resolve(PROBE_NPM_DEPENDENCY);
    return true;
  } catch {
    return false;
  }
}

export async function buildProbeBundles(sourceDir: string, outDir: string): Promise<ProbeBundles> {
  const common = {
    bundle: true,
    platform: 'node' as const,
    format: 'cjs' as const,
    target: 'node20',
    conditions: ['development'],
    logLevel: 'warning' as const,
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
