import path from 'node:path';
import { BenchmarkInputError } from '../harness/index.js';
import type { ReportableScenario } from './run-report.js';
import { writeRunReport } from './write-run-report.js';

const USAGE =
  'Usage: npx nx run benchmarks:bench -- report <results folder of all> [--compare <older folder>]';

/**
 * `report <dir> [--compare <older>]`: writes `report.md` and `report.html` of a results folder of
 * `all` again, e.g. after a run that was killed before it could write them. Exit status 0, or 2.
 */
export function runReportCommand(
  argv: readonly string[],
  options: {
    registry: readonly ReportableScenario[];
    stdout?: { write(s: string): unknown };
    stderr?: { write(s: string): unknown };
  },
): number {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const args = argv.filter((a) => a !== '--');
  const at = args.indexOf('--compare');
  const compare = at >= 0 ? args[at + 1] : undefined;
  const rest = at >= 0 ? [...args.slice(0, at), ...args.slice(at + 2)] : args;
  if (rest.length !== 1 || (at >= 0 && compare === undefined) || rest[0]!.startsWith('-')) {
    stderr.write(`${USAGE}\n`);
    return 2;
  }
  try {
    const written = writeRunReport(
      path.resolve(rest[0]!),
      options.registry,
      compare !== undefined ? { compareDir: path.resolve(compare) } : {},
    );
    stdout.write(`${written.markdownPath}\n${written.htmlPath}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof BenchmarkInputError)) throw err;
    stderr.write(`error: ${err.message}\n`);
    return 2;
  }
}
