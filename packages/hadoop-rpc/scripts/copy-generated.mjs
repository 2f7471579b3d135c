// tsc does not emit the CommonJS modules of src/ (the generated protobuf codecs, the GSS addon's
// locator, which finds the addon from its own __dirname): copy every .cjs and .d.cts into the same
// place under dist/. A walk rather than a list, so that a new one cannot be left out.
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
