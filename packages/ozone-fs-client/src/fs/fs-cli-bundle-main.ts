// The entry of the bundled `fastpath-ozone` (dist/fastpath-ozone.cjs, built by
// scripts/bundle-cli.mjs): the same command as fs-cli-main.ts, without top-level await, which a
// CommonJS bundle cannot have.
import { runFsCli } from './fs-cli.js';

void runFsCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
