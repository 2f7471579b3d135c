// The fastpath-kms every case starts: its command-line entry and everything of fastpath's it
// imports compiled into one ES module that `node` runs without a loader, as a built package runs.
// Run through the TypeScript loader instead, the server would pay for the loader's naming of
// every function it creates, the closures made per request included (a few per cent of its CPU
// per request in a profile at 100:0), which neither a built package nor the trivial route pays.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import type { ScenarioContext } from '../../harness/index.js';
import {
  chooseBundleDir,
  NODE_BUNDLE_OPTIONS,
  npmExternal,
  type BundleDir,
} from '../../harness/bundle-dir.js';
import { PROFILE_PROBE_MODULE } from './profile-probe-protocol.js';

/** An npm package the bundle loads from node_modules: resolving it shows a build folder works. */
export const KMS_BUNDLE_NPM_DEPENDENCY = 'fastify';

/**
 * Builds the bundle as `<dir>/dist/cli-main.js`, the layout `startKmsProcess({ packageDir })`
 * runs with plain `node`, and returns `dir`. `resolveFrom`: a folder `@fastpath/kms-server`
 * resolves from (the benchmarks' sources).
 */
export async function buildKmsServerBundle(dir: string, resolveFrom: string): Promise<string> {
  const packageDir = dirname(
    createRequire(join(resolveFrom, 'resolve.js')).resolve('@fastpath/kms-server/package.json'),
  );
  mkdirSync(join(dir, 'dist'), { recursive: true });
  // Whatever folder it lands in, the bundle is read as an ES module.
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  await build({
    ...NODE_BUNDLE_OPTIONS,
    conditions: [...NODE_BUNDLE_OPTIONS.conditions],
    entryPoints: [join(packageDir, 'src', 'cli-main.ts')],
    outfile: join(dir, 'dist', 'cli-main.js'),
    // ESM: the entry awaits at top level. The CommonJS `require` of the dependencies that load
    // optional modules lazily needs a definition in an ES module.
    format: 'esm',
    banner: {
      js: "import { createRequire as __fastpathRequire } from 'node:module'; const require = __fastpathRequire(import.meta.url);",
    },
    plugins: [npmExternal],
  });
  return dir;
}

/**
 * Builds the profile probe (`source`, profile-probe.ts) as `<dir>/dist/profile-probe.js`, beside
 * the server's bundle, and returns its path: the server loads it without a TypeScript loader too.
 */
export async function buildProfileProbe(dir: string, source: string): Promise<string> {
  const outfile = join(dir, 'dist', 'profile-probe.js');
  mkdirSync(dirname(outfile), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  await build({
    ...NODE_BUNDLE_OPTIONS,
    conditions: [...NODE_BUNDLE_OPTIONS.conditions],
    entryPoints: [source],
    outfile,
    format: 'esm',
    plugins: [npmExternal],
  });
  return outfile;
}

/** The run's bundle, built when a case first asks for it. */
export interface KmsServerBundle {
  /** `buildKmsServerBundle`'s folder; the first call builds it, later calls share that build. */
  packageDir(): Promise<string>;
  /** The profile probe's module (`buildProfileProbe`), in the same folder, built on the first call. */
  profileProbe(): Promise<string>;
  /** Removes the scratch folder the bundle was built in, if any. */
  remove(): void;
}

/**
 * The bundle on demand: only fastpath's versions run it, so a run of Hadoop's KMS alone builds
 * nothing and leaves no folder. `resultsDir`, `benchmarksDir`: as `chooseBundleDir` takes them;
 * `probeSource`: the profile probe's source, built only if a case asks for it; `log` is told
 * where the bundle went.
 */
export function kmsServerBundleOnDemand(
  resultsDir: string,
  benchmarksDir: string,
  resolveFrom: string,
  log: (line: string) => void,
  probeSource?: string,
): KmsServerBundle {
  let dir: BundleDir | undefined;
  let built: Promise<string> | undefined;
  let probe: Promise<string> | undefined;
  const packageDir = (): Promise<string> => {
    built ??= (async () => {
      dir = chooseBundleDir(resultsDir, benchmarksDir, 'kms-http', KMS_BUNDLE_NPM_DEPENDENCY);
      const folder = await buildKmsServerBundle(dir.dir, resolveFrom);
      log(`fastpath-kms bundled into ${folder}/dist/cli-main.js (run by node without a loader)`);
      return folder;
    })();
    return built;
  };
  return {
    packageDir,
    profileProbe() {
      probe ??= (async () => {
        if (probeSource === undefined) throw new Error('this bundle was made without the profile probe');
        const file = await buildProfileProbe(await packageDir(), probeSource);
        log(`the profile probe bundled into ${file}`);
        return file;
      })();
      return probe;
    },
    remove() {
      dir?.remove();
    },
  };
}

/**
 * Runs `run` with the bundle on demand for a scenario (built in its results folder, or a scratch
 * folder it removes afterwards): kms-http and ozone-tde start fastpath-kms from it.
 */
export async function withKmsServerBundle<T>(
  ctx: Pick<ScenarioContext<unknown>, 'results' | 'sourcePath' | 'log'>,
  run: (bundle: KmsServerBundle) => Promise<T>,
): Promise<T> {
  const bundle = kmsServerBundleOnDemand(
    ctx.results.path('kms-server-bundle'),
    dirname(ctx.sourcePath('.')),
    ctx.sourcePath('.'),
    (line) => ctx.log(line),
    ctx.sourcePath(PROFILE_PROBE_MODULE),
  );
  try {
    return await run(bundle);
  } finally {
    bundle.remove();
  }
}
