// Entry point: `tsx --conditions development src/cli.ts all|<scenario> [flags]`.
import path from 'node:path';
import { runCli } from './harness/index.js';
import { scenarios } from './scenarios/index.js';

// This file is src/cli.ts; the workspace folder is one level up. (argv[1] rather than
// import.meta, which the CommonJS build of the tests cannot compile.)
const benchmarksDir = path.resolve(path.dirname(path.resolve(process.argv[1] ?? 'src/cli.ts')), '..');

process.exitCode = await runCli(process.argv.slice(2), { scenarios, benchmarksDir });
