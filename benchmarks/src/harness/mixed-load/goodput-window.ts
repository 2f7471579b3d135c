import { LatencyRecorder } from '@fastpath/core';
import type { KmsOperation } from './operation-mix.js';

/** Counts of one operation inside one measurement window. */
export interface OperationCounts {
  /** Successful completions inside the window: the goodput. */
  ok: number;
  /** Failed completions inside the window (bad status or a body that did not validate). */
  errors: number;
}

/** What a load generator measured in one case. */
export interface WindowSummary {
  measureMs: number;
  counted: Record<KmsOperation, OperationCounts>;
  /** Completions during the warm-up: not counted. */
  warmup: Record<KmsOperation, OperationCounts>;
  /** Completions after the cutoff (the requests in flight when the window closed): not counted. */
  drained: Record<KmsOperation, OperationCounts>;
  /** Successful requests per second inside the window, all operations. */
  throughput: number;
  throughputByOp: Record<KmsOperation, number>;
  /** First error texts seen, for the report (a handful, never token material). */
  errorSamples: string[];
}

const zero = (): Record<KmsOperation, OperationCounts> => ({
  verify: { ok: 0, errors: 0 },
  create: { ok: 0, errors: 0 },
});

/**
 * The accounting of one closed-loop run: requests that complete during the warm-up are
 * ignored, requests that complete after the cutoff are ignored (they are "drained"), and only
 * successful completions inside `(measureStartMs, cutoffMs]` count toward goodput. Latency is
 * recorded for the counted completions only, per operation.
 */
export class GoodputWindow {
  readonly #measureStartMs: number;
  readonly #cutoffMs: number;
  readonly #counted = zero();
  readonly #warmup = zero();
  readonly #drained = zero();
  readonly latency: Record<KmsOperation, LatencyRecorder> = {
    verify: new LatencyRecorder(),
    create: new LatencyRecorder(),
  };
  readonly #errorSamples: string[] = [];

  constructor(measureStartMs: number, cutoffMs: number) {
    if (!(cutoffMs > measureStartMs))
      throw new RangeError('the cutoff must come after the start of measurement');
    this.#measureStartMs = measureStartMs;
    this.#cutoffMs = cutoffMs;
  }

  /** Records one completion; times are from one monotonic clock (ms). */
  record(op: KmsOperation, ok: boolean, startedMs: number, completedMs: number, error?: string): void {
    const bucket =
      completedMs <= this.#measureStartMs
        ? this.#warmup
        : completedMs <= this.#cutoffMs
          ? this.#counted
          : this.#drained;
    if (ok) bucket[op].ok++;
    else {
      bucket[op].errors++;
      if (error !== undefined && this.#errorSamples.length < 5) this.#errorSamples.push(`${op}: ${error}`);
    }
    if (ok && bucket === this.#counted) this.latency[op].recordMs(completedMs - startedMs);
  }

  /** Whether a request completing at `ms` would still count. */
  isOpen(ms: number): boolean {
    return ms <= this.#cutoffMs;
  }

  summary(): WindowSummary {
    const seconds = (this.#cutoffMs - this.#measureStartMs) / 1000;
    const throughputByOp = {
      verify: this.#counted.verify.ok / seconds,
      create: this.#counted.create.ok / seconds,
    };
    return {
      measureMs: this.#cutoffMs - this.#measureStartMs,
      counted: structuredClone(this.#counted),
      warmup: structuredClone(this.#warmup),
      drained: structuredClone(this.#drained),
      throughput: throughputByOp.verify + throughputByOp.create,
      throughputByOp,
      errorSamples: [...this.#errorSamples],
    };
  }
}
