// The process entry of `fastpath-ozone`.
import { runFsCli } from './fs-cli.js';

process.exitCode = await runFsCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
