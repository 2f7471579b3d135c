// The process entry of `fastpath-ozone`.
import { runOzoneCli } from '../cli/ozone-cli.js';

process.exitCode = await runOzoneCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
