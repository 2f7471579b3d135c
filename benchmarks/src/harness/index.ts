// The benchmark harness: everything a scenario needs, behind one door.
export {
  BenchmarkCheckError,
  BenchmarkInputError,
  BenchmarkProcessError,
  BenchmarkUsageError,
} from './benchmark-errors.js';
export type { Scenario, ScenarioContext, ScenarioFlagOptions, ScenarioReport } from './scenario.js';
export {
  describeFlags,
  integerFlag,
  listFlag,
  numberFlag,
  parseScenarioFlags,
  type FlagDefinition,
  type FlagSpec,
  type FlagValues,
} from './scenario-flags.js';
export { parseCliArgs, type CliArgs } from './cli-args.js';
export { runCli, runStamp, usage, type RunCliOptions } from './run-cli.js';
export {
  runScenarios,
  type PlannedScenario,
  type RunScenariosOptions,
  type ScenarioOutcome,
} from './run-scenarios.js';
export {
  compareRounds,
  median,
  ratioOfMedians,
  summarize,
  type RatioSummary,
  type Summary,
} from './stats.js';
export {
  formatClock,
  formatMs,
  formatRatio,
  formatRatioWithRange,
  formatSi,
  formatSiRange,
  formatSiWithRange,
  formatSignificant,
} from './format.js';
export {
  DEFAULT_PROGRESS_OPTIONS,
  estimateRemainingMs,
  formatProgressLine,
  Progress,
  type ProgressEvent,
  type ProgressOptions,
  type ProgressState,
  type ProgressStream,
} from './progress.js';
export {
  isProgressMessage,
  progressChannel,
  PROGRESS_CHANNEL_ENV,
  type ProgressMessage,
} from './progress-channel.js';
export { markdownTable, type TableColumn } from './markdown-table.js';
export { barChartSvg } from './bar-chart.js';
export { latencyChartSvg, type LatencyChartSpec } from './latency-chart.js';
export { PALETTE, type ChartPoint, type ChartSeries, type ChartSpec } from './svg-chart-frame.js';
export { DEFAULT_FONT_FILES, renderPng, type PngOptions, type PngResult } from './png.js';
export {
  ResultsWriter,
  type ChartFile,
  type ComparisonFile,
  type ResultsWriterOptions,
  type RunStatus,
} from './results-writer.js';
export { reportMarkdown, type ReportInput } from './report-markdown.js';
export { captureEnvironment, environmentMarkdown, type Environment } from './environment.js';
export { LOADED_PER_CORE, loadNote, runLoadNote } from './load-note.js';
export { TS_EXEC_ARGV, type CallOptions } from './call-protocol.js';
export { serveCalls } from './serve-calls.js';
export { runInWorker, startWorker, type StartWorkerOptions, type WorkerHandle } from './start-worker.js';
export {
  runInChild,
  shellQuote,
  startChild,
  type ChildHandle,
  type StartChildOptions,
} from './start-child.js';
export { mergeLatencies } from './merge-latencies.js';
export {
  startJavaClientProcess,
  type JavaClientProcess,
  type JavaClientProcessOptions,
} from './java-client-process.js';
