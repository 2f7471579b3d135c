// tsc does not emit the CommonJS modules of src/ (the generated protobuf codecs, the locators of
// the native addons and of the read worker's script, which find their files from their own
// __dirname, and the package-folder lookup they share): copy every .cjs and .d.cts into the same
// place under dist/. A walk rather than a list, so that a new one cannot be left out of the
// tarball (the packaging test runs the README example from the packed package to catch that).
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(pkg, 'src');

for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !/\.(cjs|d\.cts)$/.test(entry.name)) continue;
  const from = join(entry.parentPath, entry.name);
  const to = join(pkg, 'dist', relative(src, from));
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
}
