import path from 'node:path';
import { captureEnvironment } from './environment.js';
import type { PngOptions } from './png.js';
import type { Progress } from './progress.js';
import { reportMarkdown } from './report-markdown.js';
import { ResultsWriter } from './results-writer.js';
import type { Scenario, ScenarioContext, ScenarioReport } from './scenario.js';

/** A scenario picked for a run, with its flags already parsed. */
export interface PlannedScenario {
  scenario: Scenario;
  flags: unknown;
  args: readonly string[];
}

/** How a scenario of a run ended. */
export interface ScenarioOutcome {
  name: string;
  title: string;
  status: 'complete' | 'failed' | 'interrupted';
  dir: string;
  reportPath: string;
  tookMs: number;
  summary?: string;
  error?: string;
}

/** Options of {@link runScenarios}. */
export interface RunScenariosOptions {
  planned: readonly PlannedScenario[];
  quick: boolean;
  /** The run's folder: a single scenario writes straight into it, several into subfolders. */
  runDir: string;
  /** The benchmarks workspace folder (holds `src/`). */
  benchmarksDir: string;
  /** The command line of this run, recorded in every `commands.txt`. */
  commandLine: string;
  stdout: { write(chunk: string): unknown };
  progress: Progress;
  signal: AbortSignal;
  png?: PngOptions;
  now?: () => Date;
}

function describeError(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}

/**
 * Runs scenarios one after another, each into its own results folder, and writes each report.
 * A failing scenario does not stop the next; Ctrl-C (the signal) does.
 */
export async function runScenarios(options: RunScenariosOptions): Promise<ScenarioOutcome[]> {
  const now = options.now ?? (() => new Date());
  const outcomes: ScenarioOutcome[] = [];
  const several = options.planned.length > 1;
  for (const [index, { scenario, flags, args }] of options.planned.entries()) {
    if (options.signal.aborted) break;
    const dir = several ? path.join(options.runDir, scenario.name) : options.runDir;
    const results = new ResultsWriter(dir, scenario.name, options.png ? { png: options.png } : {});
    const environment = captureEnvironment({ cwd: options.benchmarksDir, now });
    const startedAt = now();
    results.writeJson('environment.json', environment);
    results.writeConfig({
      scenario: scenario.name,
      quick: options.quick,
      args,
      flags,
      startedAt: startedAt.toISOString(),
    });
    results.recordCommand(options.commandLine, `(cwd ${process.cwd()})`);
    results.log(`scenario ${scenario.name} started`);
    const label = several ? `[${index + 1}/${options.planned.length}] ${scenario.name}` : scenario.name;
    options.progress.note(`${label}: ${scenario.title} → ${path.relative(process.cwd(), dir) || '.'}`);
    const ctx: ScenarioContext = {
      flags,
      quick: options.quick,
      results,
      progress: options.progress,
      environment,
      signal: options.signal,
      sourcePath: (relative) => path.join(options.benchmarksDir, 'src', relative),
      log: (message) => results.log(message),
      note: (message) => {
        results.log(message);
        options.progress.note(message);
      },
    };
    let report: ScenarioReport | undefined;
    let error: string | undefined;
    try {
      report = await scenario.run(ctx);
    } catch (err) {
      error = describeError(err);
    }
    options.progress.end();
    const status = error === undefined ? 'complete' : options.signal.aborted ? 'interrupted' : 'failed';
    results.finishComparison(status, error);
    results.log(`scenario ${scenario.name} ${status}`);
    const finishedAt = now();
    const reportPath = results.writeReport(
      reportMarkdown({
        title: scenario.title,
        description: scenario.description,
        status,
        ...(report ? { body: report.markdown } : {}),
        ...(error !== undefined ? { error } : {}),
        charts: results.charts,
        environment,
        quick: options.quick,
        scenarioArgs: args,
        commandLine: options.commandLine,
        startedAt,
        finishedAt,
      }),
    );
    const outcome: ScenarioOutcome = {
      name: scenario.name,
      title: scenario.title,
      status,
      dir,
      reportPath,
      tookMs: finishedAt.getTime() - startedAt.getTime(),
    };
    if (report) outcome.summary = report.summary ?? report.markdown;
    if (error !== undefined) outcome.error = error;
    outcomes.push(outcome);
    const shown = report ? report.markdown.trim() : `**${status}**\n\n\`\`\`\n${error}\n\`\`\``;
    options.stdout.write(
      `\n## ${scenario.title}\n\n${shown}\n\nReport: ${path.relative(process.cwd(), reportPath)}\n`,
    );
  }
  return outcomes;
}
