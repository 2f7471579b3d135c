import { FastpathError } from '@fastpath/core';

/**
 * A bad command line: an unknown scenario, an unknown flag or a flag value out of range.
 * The CLI prints the message with the usage and exits with status 2; nothing is measured.
 */
export class BenchmarkUsageError extends FastpathError {
  constructor(message: string) {
    super('ERR_BENCH_USAGE', message);
  }
}

/** A worker thread or child process running part of a scenario failed, exited or timed out. */
export class BenchmarkProcessError extends FastpathError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('ERR_BENCH_PROCESS_FAILED', message, options);
  }
}

/**
 * A scenario's own sanity check failed (for example an exclusive lock seen with two holders), so
 * its numbers cannot be trusted. What was measured is still written to the results folder.
 */
export class BenchmarkCheckError extends FastpathError {
  constructor(message: string) {
    super('ERR_BENCH_CHECK_FAILED', message);
  }
}

/**
 * A harness function got input it cannot use: a statistic of no samples or of a non-finite sample,
 * a zero baseline, a table row wider than its header, a chart without series. A bug in the scenario.
 */
export class BenchmarkInputError extends FastpathError {
  constructor(message: string) {
    super('ERR_BENCH_INVALID_INPUT', message);
  }
}
