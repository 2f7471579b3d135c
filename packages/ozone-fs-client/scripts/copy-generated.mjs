// tsc does not emit the CommonJS modules of src/: copy them (and their declarations) into dist/.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(join(pkg, 'dist/internal/proto'), { recursive: true });
for (const f of ['protos.cjs', 'protos.d.cts'])
  copyFileSync(join(pkg, 'src/internal/proto', f), join(pkg, 'dist/internal/proto', f));
// The native addon's locator is CommonJS too (it finds the addon from its own __dirname).
mkdirSync(join(pkg, 'dist/internal/unix-fd'), { recursive: true });
for (const f of ['native-addon.cjs', 'native-addon.d.cts'])
  copyFileSync(join(pkg, 'src/internal/unix-fd', f), join(pkg, 'dist/internal/unix-fd', f));
