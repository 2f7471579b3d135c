// Bundles the fastpath-ozone command into one CommonJS file, dist/fastpath-ozone.cjs, that
// bin/fastpath-ozone.js loads through a V8 code cache: a short-lived command resolves one file
// instead of a few hundred and compiles little (see docs/cold-start.md). Native addons stay
// outside the bundle and load from node_modules.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
// An output path as the first argument is for tests, which must not write into dist/.
const outfile = process.argv[2] ?? join(pkg, 'dist/fastpath-ozone.cjs');
await build({
  entryPoints: [join(pkg, 'src/fs/fs-cli-bundle-main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // The sources, as the tests run them; the published dist/ is compiled from the same files.
  conditions: ['development'],
  external: ['@node-rs/crc32'],
  legalComments: 'none',
  logLevel: 'warning',
});
