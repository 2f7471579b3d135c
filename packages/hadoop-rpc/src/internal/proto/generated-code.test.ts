// The committed codecs are what the generator makes of proto/*.proto today: a change to a .proto
// file without `npm run generate` fails here.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

it('protos.cjs and protos.d.cts are current with proto/*.proto', () => {
  const generator = require.resolve('@fastpath/protobuf-codegen/bin/generate-protos.mjs');
  expect(() =>
    execFileSync(process.execPath, [generator, '--check'], {
      cwd: join(__dirname, '../../..'),
      stdio: 'pipe',
    }),
  ).not.toThrow();
}, 120_000);
