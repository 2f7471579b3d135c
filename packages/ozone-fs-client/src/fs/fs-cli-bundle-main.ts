// The entry of the bundled `fastpath-ozone` (dist/fastpath-ozone.cjs, built by
// scripts/bundle-cli.mjs): the same command as fs-cli-main.ts, without top-level await, which a
// CommonJS bundle cannot have.
import { runOzoneCli } from '../cli/ozone-cli.js';

void runOzoneCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
