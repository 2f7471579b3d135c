// The fastpath-kms every case starts: its command-line entry and everything of fastpath's it
// imports compiled into one ES module that `node` runs without a loader, as a built package runs.
// Run through the TypeScript loader instead, the server would pay for the loader's naming of
// every function it creates, the closures made per request included (a few per cent of its CPU
// per request in a profile at 100:0), which neither a built package nor the trivial route pays.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { NODE_BUNDLE_OPTIONS, npmExternal } from '../../harness/bundle-dir.js';

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
