// The committed codecs are what the generator makes of proto/*.proto today: a change to a .proto
// file without `npm run generate` fails here.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const pkg = join(__dirname, '../../..');

it('protos.cjs and protos.d.cts are current with proto/*.proto', () => {
  const out = mkdtempSync(join(tmpdir(), 'fastpath-protos-'));
  try {
    execFileSync(process.execPath, [join(pkg, 'scripts/generate-protos.mjs'), out], { stdio: 'pipe' });
    for (const file of ['protos.cjs', 'protos.d.cts']) {
      expect(readFileSync(join(out, file), 'utf8')).toBe(readFileSync(join(__dirname, file), 'utf8'));
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 120_000);
