import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import {
  BenchmarkInputError,
  BenchmarkUsageError,
  isProgressMessage,
  Progress,
  PROGRESS_CHANNEL_ENV,
  runStamp,
  shellQuote,
  TS_EXEC_ARGV,
  type ProgressEvent,
  type ProgressOptions,
  type ProgressState,
  type Scenario,
} from '../harness/index.js';
import { ALL_USAGE, parseAllArgs } from './all-args.js';
import { captureMachineInfo } from './machine-info.js';
import { summaryMarkdown } from './report-markdown.js';
import {
  writeManifest,
  type RunManifest,
  type ScenarioRunRecord,
  type ScenarioRunStatus,
} from './run-manifest.js';
import { runProgressState } from './run-progress.js';
import { buildRunReport, type ReportableScenario } from './run-report.js';
import { openScenarioFolder } from './scenario-results-folder.js';
import type { UsedTool } from './scenario-summary.js';
import { writeRunReport } from './write-run-report.js';

/** A registered scenario as `all` runs it. */
export interface RunnableScenario extends ReportableScenario {
  readonly scenario: Scenario;
}

export interface RunAllOptions {
  registry: readonly RunnableScenario[];
  /** The benchmarks workspace (the scenario processes' working directory; results under it). */
  benchmarksDir: string;
  /** The repository root, for the commit and the tools' versions. */
  repoDir: string;
  /** The module each scenario's process runs as `<it> <scenario> --output <dir> [--quick]`. */
  cliPath: string;
  stdout?: { write(chunk: string): unknown };
  stderr?: ProgressOptions['stream'];
  /** Aborting it stops the run as Ctrl-C does. Default: SIGINT of this process. */
  signal?: AbortSignal;
  progress?: Omit<ProgressOptions, 'stream' | 'observer'>;
  now?: () => Date;
}

interface ChildOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
}

const STDERR_TAIL_CHARS = 2000;

/** The command as a person typed it, when npm (through Nx) ran the `all` script. */
function typedCommand(argv: readonly string[]): string | null {
  if (process.env.npm_lifecycle_event !== 'all') return null;
  return `npx nx run benchmarks:all${argv.length ? ` -- ${argv.map(shellQuote).join(' ')}` : ''}`;
}

function statusOf(
  outcome: ChildOutcome,
  resultsStatus: string | undefined,
  aborted: boolean,
): ScenarioRunStatus {
  if (outcome.exitCode === 0 && resultsStatus === 'complete') return 'complete';
  if (outcome.exitCode === 130 || resultsStatus === 'interrupted' || (aborted && outcome.exitCode !== 0))
    return 'interrupted';
  return 'failed';
}

/**
 * `benchmarks:all`: runs every registered scenario (or `--only` a few), each in its own fresh
 * process with its source's defaults or the `--quick` profile, shows one progress line for the
 * whole run, keeps `run.json` current after every step, and writes `report.md` and `report.html`
 * at the end — also when a scenario failed, or the run was interrupted (marked incomplete).
 * Resolves with the exit status: 0 every scenario complete, 1 one failed, 2 bad usage, 130 interrupted.
 */
export async function runAll(argv: readonly string[], options: RunAllOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const now = options.now ?? (() => new Date());
  const names = options.registry.map((r) => r.scenario.name);
  let args;
  const planned: { entry: RunnableScenario; cases: number; estimateMs: number; uses: readonly UsedTool[] }[] =
    [];
  try {
    args = parseAllArgs(argv, names);
    if (args.help) {
      stdout.write(`${ALL_USAGE}\n`);
      return 0;
    }
    for (const entry of options.registry) {
      if (args.only && !args.only.includes(entry.scenario.name)) continue;
      // The flags the scenario's process will resolve: its defaults for this profile.
      const flags = entry.scenario.parseFlags
        ? entry.scenario.parseFlags([], { quick: args.quick, all: true })
        : {};
      planned.push({
        entry,
        cases: entry.summary.cases(flags, args.quick),
        estimateMs: entry.summary.estimateMs(flags, args.quick),
        uses: entry.summary.uses(flags, args.quick),
      });
    }
    // An older run to compare with must be readable before anything runs.
    if (args.compare !== undefined) buildRunReport(path.resolve(args.compare), options.registry);
  } catch (err) {
    if (err instanceof BenchmarkInputError && args?.compare !== undefined) {
      stderr.write(`error: --compare: ${err.message}\n`);
      return 2;
    }
    if (!(err instanceof BenchmarkUsageError)) throw err;
    stderr.write(`error: ${err.message}\n\n${ALL_USAGE}\n`);
    return 2;
  }

  const started = now();
  const runDir = path.resolve(
    args.output ?? path.join(options.benchmarksDir, 'results', `${runStamp(started)}-all`),
  );
  const uses = new Set<UsedTool>(planned.flatMap((p) => p.uses));
  const processCommand = [process.execPath, ...process.execArgv, ...process.argv.slice(1)]
    .map(shellQuote)
    .join(' ');
  const manifest: RunManifest = {
    kind: 'fastpath-benchmarks-all',
    command: typedCommand(argv) ?? processCommand,
    processCommand,
    cwd: process.cwd(),
    quick: args.quick,
    only: args.only,
    startedAt: started.toISOString(),
    finishedAt: null,
    status: 'running',
    stopped: null,
    machine: captureMachineInfo({ repoDir: options.repoDir, uses, now }),
    scenarios: planned.map(({ entry, cases, estimateMs }): ScenarioRunRecord => ({
      name: entry.scenario.name,
      title: entry.scenario.title,
      source: entry.source,
      status: 'pending',
      dir: entry.scenario.name,
      command: null,
      startedAt: null,
      tookMs: null,
      exitCode: null,
      error: null,
      cases,
      estimateMs,
    })),
  };
  writeManifest(runDir, manifest);
  const compare = args.compare !== undefined ? { compareDir: path.resolve(args.compare) } : {};
  // The report is rewritten after every scenario, marked incomplete until the end: a run whose
  // own process is killed outright (a task runner's SIGKILL) still leaves the report of what finished.
  const writeReport = () => writeRunReport(runDir, options.registry, compare);
  writeReport();

  // Output to a pipe that closed (the terminal or task runner went away) must not end the run.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', ignorePipeError);
  const progress = new Progress({ ...options.progress, stream: stderr });
  const controller = new AbortController();
  const signal = options.signal ?? controller.signal;
  let child: ReturnType<typeof spawn> | undefined;
  let interrupts = 0;
  const onInterrupt = (): void => {
    interrupts++;
    if (interrupts === 1) {
      progress.note(
        '\ninterrupted: the running scenario stops after its current step and writes what it has (Ctrl-C again to stop it at once)',
      );
      controller.abort();
    } else if (child?.pid !== undefined) {
      // The scenario's process leads its own process group: this ends it and whatever it started.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  };
  const forward = (): void => {
    if (child?.pid !== undefined) child.kill('SIGINT');
  };
  signal.addEventListener('abort', forward);
  // SIGTERM too: a task runner that stops its task (Nx on Ctrl-C) sends it, and the report of what
  // finished must still be written.
  if (!options.signal) {
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onInterrupt);
  }

  const estimates = planned.map((p) => p.estimateMs);
  progress.begin(
    'benchmarks:all',
    estimates.reduce((a, b) => a + b, 0),
  );
  const say = (message: string): void => progress.note(message);
  say(
    `benchmarks:all${args.quick ? ' --quick' : ''}: ${planned.length} scenario(s) → ${path.relative(process.cwd(), runDir) || '.'}`,
  );

  try {
    for (const index of planned.keys()) {
      const record = manifest.scenarios[index]!;
      if (signal.aborted) {
        record.status = 'not run';
        continue;
      }
      const dir = path.join(runDir, record.dir);
      mkdirSync(dir, { recursive: true });
      const childArgs = [
        ...TS_EXEC_ARGV,
        options.cliPath,
        record.name,
        '--as-part-of-all',
        '--output',
        dir,
        ...(args.quick ? ['--quick'] : []),
      ];
      record.command = [process.execPath, ...childArgs].map(shellQuote).join(' ');
      record.status = 'running';
      const startedAt = now();
      record.startedAt = startedAt.toISOString();
      record.loadAverage = { start: loadavg(), end: null };
      // The child runs on this very binary (process.execPath, above).
      record.node = process.version;
      writeManifest(runDir, manifest);
      let scenarioState: ProgressState | undefined;
      const startedMs = performance.now();
      const draw = (): void => {
        const fraction =
          scenarioState && scenarioState.total > 0 ? scenarioState.done / scenarioState.total : 0;
        progress.update(
          runProgressState({
            index,
            count: planned.length,
            name: record.name,
            cases: record.cases,
            fraction,
            scenarioElapsedMs: performance.now() - startedMs,
            detail: scenarioState?.detail ?? 'starting',
            estimatesMs: estimates,
          }),
        );
      };
      draw();
      const log = createWriteStream(path.join(dir, 'console.log'));
      const outcome = await runChild(
        process.execPath,
        childArgs,
        options.benchmarksDir,
        log,
        (child_) => (child = child_),
        (event) => {
          if (event.kind === 'note') say(`  ${record.name}: ${event.message}`);
          else {
            scenarioState = event.state;
            draw();
          }
        },
      );
      child = undefined;
      await new Promise<void>((resolve) => log.end(resolve));
      const results = openScenarioFolder(dir, record.name);
      record.status = statusOf(outcome, results?.status, signal.aborted);
      record.exitCode = outcome.exitCode;
      record.tookMs = now().getTime() - startedAt.getTime();
      record.loadAverage.end = loadavg();
      if (record.status !== 'complete') {
        const how = outcome.signal ? `killed by ${outcome.signal}` : `exit status ${outcome.exitCode}`;
        record.error = `${how}${results?.error ? `\n${results.error}` : ''}\n${outcome.stderrTail}`.trim();
      }
      writeManifest(runDir, manifest);
      writeReport();
      say(
        `${record.status === 'complete' ? '✓' : '✗'} [${index + 1}/${planned.length}] ${record.name} ${record.status} (${Math.round((record.tookMs ?? 0) / 1000)} s) → ${path.relative(process.cwd(), path.join(dir, 'report.md'))}`,
      );
    }
  } catch (err) {
    manifest.stopped = `the run itself failed: ${err instanceof Error ? err.message : String(err)}`;
    throw err;
  } finally {
    signal.removeEventListener('abort', forward);
    for (const stream of [process.stdout, process.stderr]) stream.off('error', ignorePipeError);
    if (!options.signal) {
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onInterrupt);
    }
    for (const record of manifest.scenarios)
      if (record.status === 'pending' || record.status === 'running') record.status = 'not run';
    if (signal.aborted && manifest.stopped === null) manifest.stopped = 'interrupted';
    manifest.finishedAt = now().toISOString();
    manifest.status =
      manifest.scenarios.every((s) => s.status === 'complete') && !signal.aborted ? 'complete' : 'incomplete';
    writeManifest(runDir, manifest);
    // The report is written whatever happened above, and before anything is printed: a task
    // runner that is stopping may already have closed the pipes, or be about to end this process.
    const written = writeReport();
    progress.end();
    stdout.write(
      `\n${summaryMarkdown(written.report)}\n\nReport: ${path.relative(process.cwd(), written.markdownPath)} and ${path.relative(process.cwd(), written.htmlPath)}\n`,
    );
  }
  if (signal.aborted) return 130;
  return manifest.status === 'complete' ? 0 : 1;
}

function ignorePipeError(err: NodeJS.ErrnoException): void {
  if (err.code !== 'EPIPE') throw err;
}

/** Runs one scenario's process to its end, passing its progress events on. */
function runChild(
  command: string,
  args: readonly string[],
  cwd: string,
  log: WriteStream,
  onSpawn: (child: ReturnType<typeof spawn>) => void,
  onProgress: (event: ProgressEvent) => void,
): Promise<ChildOutcome> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      // Its own process group: Ctrl-C reaches only this process, which passes it on once (a
      // second Ctrl-C then ends the group), and nothing the scenario started outlives a kill.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: { ...process.env, [PROGRESS_CHANNEL_ENV]: '1' },
    });
    onSpawn(child);
    let tail = '';
    child.stdout?.pipe(log, { end: false });
    child.stderr?.on('data', (chunk: Buffer) => {
      log.write(chunk);
      tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
    });
    child.on('message', (message) => {
      if (isProgressMessage(message)) onProgress(message.event);
    });
    child.once('error', (err) =>
      resolve({ exitCode: null, signal: null, stderrTail: `${err.message}\n${tail}` }),
    );
    child.once('close', (exitCode, signal) => resolve({ exitCode, signal, stderrTail: tail.trim() }));
  });
}
