// tsc does not emit the CommonJS codec module of src/: copy it (and its declarations) into dist/.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(join(pkg, 'dist/internal/proto'), { recursive: true });
for (const f of ['protos.cjs', 'protos.d.cts'])
  copyFileSync(join(pkg, 'src/internal/proto', f), join(pkg, 'dist/internal/proto', f));
