// Entry point of the `fastpath-kms` command (also run by cluster workers and startKmsProcess).
import { runCli } from './internal/cli/run-cli.js';

const code = await runCli(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
// Everything was closed and flushed by now; an IPC channel (cluster, startKmsProcess) would
// otherwise keep the process alive.
process.exit(code);
