// Entry point: `tsx --conditions development src/cli.ts all|report|<scenario> [flags]`.
import path from 'node:path';
import { runAll } from './all/run-all.js';
import { runReportCommand } from './all/run-report-command.js';
import { runCli } from './harness/index.js';
import { registry, scenarios } from './scenarios/index.js';

// This file is src/cli.ts; the workspace folder is one level up. (argv[1] rather than
// import.meta, which the CommonJS build of the tests cannot compile.)
const cliPath = path.resolve(process.argv[1] ?? 'src/cli.ts');
const benchmarksDir = path.resolve(path.dirname(cliPath), '..');
const repoDir = path.resolve(benchmarksDir, '..');
const [command, ...rest] = process.argv.slice(2);

process.exitCode =
  command === 'all'
    ? await runAll(rest, { registry, benchmarksDir, repoDir, cliPath })
    : command === 'report'
      ? runReportCommand(rest, { registry })
      : await runCli(process.argv.slice(2), { scenarios, benchmarksDir });
