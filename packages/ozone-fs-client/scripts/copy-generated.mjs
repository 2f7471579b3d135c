// tsc does not emit the CommonJS modules of src/: copy them (and their declarations) into dist/.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(join(pkg, 'dist/internal/proto'), { recursive: true });
for (const f of ['protos.cjs', 'protos.d.cts'])
  copyFileSync(join(pkg, 'src/internal/proto', f), join(pkg, 'dist/internal/proto', f));
// The locators of the native addon and of the read worker's script are CommonJS too (each finds
// its file from its own __dirname), and so is the package-folder lookup they share.
for (const f of ['package-dir.cjs', 'package-dir.d.cts'])
  copyFileSync(join(pkg, 'src/internal', f), join(pkg, 'dist/internal', f));
mkdirSync(join(pkg, 'dist/internal/unix-fd'), { recursive: true });
for (const f of ['native-addon.cjs', 'native-addon.d.cts'])
  copyFileSync(join(pkg, 'src/internal/unix-fd', f), join(pkg, 'dist/internal/unix-fd', f));
mkdirSync(join(pkg, 'dist/internal/workers'), { recursive: true });
for (const f of ['read-worker-entry.cjs', 'read-worker-entry.d.cts'])
  copyFileSync(join(pkg, 'src/internal/workers', f), join(pkg, 'dist/internal/workers', f));
