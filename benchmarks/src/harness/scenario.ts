import type { Environment } from './environment.js';
import type { Progress } from './progress.js';
import type { ResultsWriter } from './results-writer.js';
import type { FlagSpec } from './scenario-flags.js';

/** What a running scenario gets from the harness. `F` is what its `parseFlags` returned. */
export interface ScenarioContext<F = unknown> {
  /** The scenario's flags, parsed and checked before anything ran. */
  readonly flags: F;
  /** `--quick`: shorten everything to a smoke run of a few seconds. */
  readonly quick: boolean;
  /** The scenario's results folder: case JSON, comparison JSON, logs, charts. */
  readonly results: ResultsWriter;
  /** The progress display; call `begin` with the planned work, then `advance`. */
  readonly progress: Progress;
  /** The machine and commit, captured when the scenario started. */
  readonly environment: Environment;
  /** Fires on Ctrl-C: stop at the next case boundary and return what was measured. */
  readonly signal: AbortSignal;
  /** The absolute path of a file under `benchmarks/src`, e.g. a worker module. */
  sourcePath(relative: string): string;
  /** A line in `run.log` only. */
  log(message: string): void;
  /** A line shown to the user (without breaking the progress line) and kept in `run.log`. */
  note(message: string): void;
}

/** What a scenario hands back; the harness writes `report.md` and prints `markdown`. */
export interface ScenarioReport {
  /** The report body: tables in the source document's layout, and how to read them. */
  markdown: string;
  /** A shorter body (usually just the main table) for the combined summary of `all`. Default: `markdown`. */
  summary?: string;
}

/** What `parseFlags` is told besides the scenario's own flags. */
export interface ScenarioFlagOptions {
  /** `--quick` was given. */
  readonly quick: boolean;
  /**
   * The scenario runs as part of `all`: a scenario may include in `all` a part that its own
   * default run leaves out because it takes long (kms-http's Hadoop KMS column).
   */
  readonly all: boolean;
}

/**
 * One benchmark scenario, registered in `src/scenarios/index.ts`.
 *
 * @example
 * ```ts
 * export const fooScenario: Scenario<FooFlags> = {
 *   name: 'foo',
 *   title: 'Foo against bar',
 *   description: 'What one op is, what is compared, and what is left out.',
 *   flags: FOO_FLAGS,
 *   parseFlags: (args, { quick }) => parseFooFlags(args, quick),
 *   async run(ctx) {
 *     // measure, ctx.results.writeCase(...), ctx.results.recordComparison(...), charts
 *     return { markdown: table };
 *   },
 * };
 * ```
 */
export interface Scenario<F = unknown> {
  /** The CLI and Nx target name: lower-case words joined by `-`. */
  readonly name: string;
  /** Heading of the report. */
  readonly title: string;
  /** One paragraph for the report and `--help`: what is measured against what. */
  readonly description: string;
  /** The flags it accepts, for `--help`. Default: none. */
  readonly flags?: FlagSpec;
  /**
   * Parses and checks its flags (throwing `BenchmarkUsageError` on a bad one) before any scenario
   * starts. Without it, the scenario accepts no flags.
   */
  parseFlags?(args: readonly string[], options: ScenarioFlagOptions): F;
  run(ctx: ScenarioContext<F>): Promise<ScenarioReport>;
}
