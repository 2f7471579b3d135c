import path from 'node:path';
import { BenchmarkUsageError } from './benchmark-errors.js';
import { shellQuote } from './start-child.js';
import { parseCliArgs } from './cli-args.js';
import { Progress } from './progress.js';
import { progressChannel } from './progress-channel.js';
import { runScenarios, type PlannedScenario } from './run-scenarios.js';
import type { Scenario } from './scenario.js';
import { describeFlags } from './scenario-flags.js';

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** The registry: the scenarios that can be run by name. */
  scenarios: readonly Scenario[];
  /** The benchmarks workspace folder; results go to `<it>/results` unless `--output` is given. */
  benchmarksDir: string;
  stdout?: { write(chunk: string): unknown };
  stderr?: { write(chunk: string): unknown; isTTY?: boolean; columns?: number };
  now?: () => Date;
}

/** `2024-05-01T093012Z`: sorts by time and is a valid folder name everywhere. */
export function runStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '');
}

export function usage(scenarios: readonly Scenario[]): string {
  const width = Math.max(3, ...scenarios.map((s) => s.name.length));
  return [
    'Usage: npx nx run benchmarks:<all|scenario> [-- flags]',
    '   or (in benchmarks/): npx tsx --conditions development src/cli.ts <all|report|scenario> [flags]',
    '',
    'Scenarios:',
    `  ${'all'.padEnd(width)}  every scenario below, each in its own process, then report.md and report.html (all --help)`,
    `  ${'report'.padEnd(width)}  write report.md and report.html of a results folder of all again: report <dir> [--compare <dir>]`,
    ...scenarios.map((s) => `  ${s.name.padEnd(width)}  ${s.title}`),
    '',
    'Flags:',
    '  --output <dir>  results folder (default: benchmarks/results/<timestamp>-<scenario>)',
    '  --quick         a smoke run of a few seconds per scenario; numbers are not to be quoted',
    '  --as-part-of-all  run as all runs it (all passes this to each scenario process it starts)',
    '  --help          this text; after a scenario name, that scenario and its flags',
    '',
    'Scenario flags follow the scenario name: npx nx run benchmarks:locks -- --rounds 9',
  ].join('\n');
}

function scenarioHelp(scenario: Scenario): string {
  return [
    `${scenario.name}: ${scenario.title}`,
    '',
    scenario.description,
    '',
    'Flags:',
    scenario.flags && Object.keys(scenario.flags).length ? describeFlags(scenario.flags) : '  (none)',
  ].join('\n');
}

/**
 * The command line of one scenario: parses the arguments, checks the scenario's flags before
 * anything runs, runs it and writes its report (`all` runs each scenario through this, in its own
 * process).
 * Resolves with the exit status: 0 done, 1 a scenario failed, 2 bad usage, 130 interrupted.
 */
export async function runCli(argv: readonly string[], options: RunCliOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const now = options.now ?? (() => new Date());
  const names = options.scenarios.map((s) => s.name);
  const fail = (err: unknown): number => {
    if (!(err instanceof BenchmarkUsageError)) throw err;
    stderr.write(`error: ${err.message}\n\n${usage(options.scenarios)}\n`);
    return 2;
  };
  let args;
  try {
    args = parseCliArgs(argv, names);
  } catch (err) {
    return fail(err);
  }
  const selected = options.scenarios.filter((s) => s.name === args.target);
  if (args.help) {
    stdout.write(`${args.target === undefined ? usage(options.scenarios) : scenarioHelp(selected[0]!)}\n`);
    return 0;
  }
  const planned: PlannedScenario[] = [];
  try {
    for (const scenario of selected) {
      if (scenario.parseFlags) {
        planned.push({
          scenario,
          flags: scenario.parseFlags(args.scenarioArgs, { quick: args.quick, all: args.partOfAll }),
          args: args.scenarioArgs,
        });
      } else if (args.scenarioArgs.length > 0) {
        throw new BenchmarkUsageError(`${scenario.name} takes no flags, got ${args.scenarioArgs.join(' ')}`);
      } else {
        planned.push({ scenario, flags: {}, args: [] });
      }
    }
  } catch (err) {
    return fail(err);
  }
  const started = now();
  const runDir = path.resolve(
    args.output ?? path.join(options.benchmarksDir, 'results', `${runStamp(started)}-${args.target!}`),
  );
  const commandLine = [process.execPath, ...process.execArgv, ...process.argv.slice(1)]
    .map(shellQuote)
    .join(' ');
  const controller = new AbortController();
  const onSigint = (): void => {
    if (controller.signal.aborted) process.exit(130);
    stderr.write('\ninterrupted: stopping after the current step (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  // Under `all`, a parent that is gone (killed, crashed) stops this scenario as Ctrl-C would, so
  // it writes what it has instead of running on unobserved.
  const observer = progressChannel();
  const onDisconnect = (): void => {
    if (!controller.signal.aborted) controller.abort();
  };
  if (observer) process.on('disconnect', onDisconnect);
  try {
    const outcomes = await runScenarios({
      planned,
      quick: args.quick,
      runDir,
      benchmarksDir: options.benchmarksDir,
      commandLine,
      stdout,
      progress: new Progress({ stream: stderr, ...(observer ? { observer } : {}) }),
      signal: controller.signal,
      now,
    });
    if (controller.signal.aborted || outcomes.some((o) => o.status === 'interrupted')) return 130;
    return outcomes.some((o) => o.status !== 'complete') ? 1 : 0;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('disconnect', onDisconnect);
  }
}
