// The once-per-process warm-up (HDDS-17357's one-shot daemon thread, as Node can have it). Node
// loads and compiles modules on the main thread, and worker threads share none of it, so the
// warm-up runs on the main thread in the time the caller spends waiting on its first metadata
// call: one step per event-loop turn, each in an unref'd immediate, so I/O callbacks interleave
// between steps and a process with nothing else to do exits without waiting for them.
import { performance } from 'node:perf_hooks';
import { debuglog } from 'node:util';

// NODE_DEBUG=fastpath-warmup shows what each step did, how long it took and why one failed.
const debug = debuglog('fastpath-warmup');

/** One piece of set-up work. `run` may return a promise; whatever it throws or rejects with is logged and ignored. */
export interface WarmupStep {
  /** Short name in logs and in {@link WarmupHandle.state}, e.g. `datanode-protocol`. */
  readonly name: string;
  /**
   * Does the work on the main thread. A returned promise is awaited before the next step starts;
   * a throw or rejection marks the step `failed` and the next step runs.
   */
  run(): unknown;
}

/** What to warm, in order. The client that starts the warm-up decides the steps. */
export interface WarmupPlan {
  /** Run in this order, one per event-loop turn; an entry without a `run` function is left out. */
  readonly steps: readonly WarmupStep[];
}

/**
 * Where a step is: `pending` (not started), `running` (its `run` was called and, if it returned a
 * promise, that promise has not settled), `done` or `failed` (it threw or rejected).
 */
export type WarmupStepState = 'pending' | 'running' | 'done' | 'failed';

/** How one step ended. `error` is the message of what it threw (never its stack or data). */
export interface WarmupStepOutcome {
  /** The step's {@link WarmupStep.name}. */
  readonly name: string;
  /** `done` if `run` returned (and its promise resolved); `failed` if it threw or rejected. */
  readonly state: 'done' | 'failed';
  /** Milliseconds from calling `run` until it returned or its promise settled (fractional). */
  readonly durationMs: number;
  /** Message of what the step threw (or the thrown value as a string); set only when `failed`. */
  readonly error?: string;
}

/** The process's warm-up: the same object for every caller of {@link startWarmup}. */
export interface WarmupHandle {
  /** The names of the steps of the plan that started it. */
  readonly steps: readonly string[];
  /** Where a step is now; undefined for a name the plan does not have. */
  state(name: string): WarmupStepState | undefined;
  /** Settles with every step's outcome once all have run. Never rejects, and keeps nothing alive. */
  readonly done: Promise<readonly WarmupStepOutcome[]>;
}

const HANDLE = Symbol.for('@fastpath/client-warmup.handle');
type WarmupGlobal = { [HANDLE]?: WarmupHandle };

function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(resolve).unref();
  });
}

// The plan comes from a client's code, possibly plain JavaScript: steps without a run function
// are left out rather than failing the client that asked for a warm-up.
function isStep(value: unknown): value is WarmupStep {
  return typeof (value as { run?: unknown } | null)?.run === 'function';
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * Runs `plan` without the once-per-process guard: the steps in order, one per event-loop turn.
 * {@link startWarmup} is what clients call; this is the runner it uses.
 */
export function runWarmup(plan: WarmupPlan): WarmupHandle {
  const listed: unknown = plan?.steps;
  const steps = Array.isArray(listed) ? listed.filter(isStep) : [];
  const states = new Map<string, WarmupStepState>(steps.map((s) => [String(s.name), 'pending']));
  const run = async (): Promise<WarmupStepOutcome[]> => {
    const outcomes: WarmupStepOutcome[] = [];
    for (const step of steps) {
      await nextTurn();
      const name = String(step.name);
      states.set(name, 'running');
      const started = performance.now();
      try {
        const result = step.run();
        if (isThenable(result)) await result;
        const durationMs = performance.now() - started;
        states.set(name, 'done');
        outcomes.push({ name, state: 'done', durationMs });
        debug('step %s done in %s ms', name, durationMs.toFixed(2));
      } catch (err) {
        const durationMs = performance.now() - started;
        const error = err instanceof Error ? err.message : String(err);
        states.set(name, 'failed');
        outcomes.push({ name, state: 'failed', durationMs, error });
        debug('step %s failed after %s ms (ignored): %s', name, durationMs.toFixed(2), error);
      }
    }
    return outcomes;
  };
  const done = run().catch((err: unknown) => {
    // Only a bug in the runner itself lands here; the caller still never sees it.
    debug('warm-up stopped: %s', err instanceof Error ? err.message : String(err));
    return [];
  });
  return Object.freeze({
    steps: [...states.keys()],
    state: (name: string) => states.get(name),
    done,
  });
}

/**
 * Starts the process's warm-up with `plan`, once: every later call returns the first call's
 * handle and its plan is not run (like the source's once-per-JVM daemon thread, the first client
 * decides what is warmed). Returns at once; never throws.
 *
 * @example
 * ```ts
 * const warmup = startWarmup({ steps: [{ name: 'checksum', run: () => computeChecksums('CRC32', 16384, sample) }] });
 * // ... await the first metadata call; the steps run in between ...
 * if (warmup.state('checksum') === 'done') { ... }
 * ```
 */
export function startWarmup(plan: WarmupPlan): WarmupHandle {
  const g = globalThis as WarmupGlobal;
  const existing = g[HANDLE];
  if (existing) return existing;
  const handle = runWarmup(plan);
  g[HANDLE] = handle;
  debug('started: %s', handle.steps.join(', ') || '(no steps)');
  return handle;
}

/** The process's warm-up if one was started. */
export function currentWarmup(): WarmupHandle | undefined {
  return (globalThis as WarmupGlobal)[HANDLE];
}
