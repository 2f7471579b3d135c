// `fastpath-ozone`: its command groups, `fs` (Hadoop's `ozone fs`) and `dtutil` (Hadoop's
// `hadoop dtutil` for OM delegation tokens).
import { DTUTIL_USAGE, runDtutilCli } from './dtutil-cli.js';
import { FS_CLI_USAGE, type FsCliIo, runFsCli } from '../fs/fs-cli.js';

/** Runs one `fastpath-ozone` command line; resolves to the exit status. */
export async function runOzoneCli(argv: readonly string[], io: FsCliIo): Promise<number> {
  if (argv[0] === 'dtutil') return runDtutilCli(argv.slice(1), io);
  if (argv[0] === 'fs') return runFsCli(argv, io);
  io.stderr.write(
    `fastpath-ozone: ${argv[0] === undefined ? 'no command' : `unknown command ${argv[0]}`}\n${FS_CLI_USAGE}\n\n${DTUTIL_USAGE}\n`,
  );
  return 2;
}
