/** Resolves after `ms`, or right away when `signal` fires. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Options of {@link pollUntil}. */
export interface PollUntilOptions {
  /** Give up after this long. */
  readonly timeoutMs: number;
  /** Pause between attempts. Default 100 ms. */
  readonly intervalMs?: number;
  /** Settles early: when it resolves, the poll stops (e.g. the server process exited). */
  readonly stopWhen?: Promise<unknown>;
}

/**
 * Calls `attempt` until it returns something other than `undefined`, pausing `intervalMs`
 * between tries. Returns `undefined` when `timeoutMs` ran out or `stopWhen` settled first; the
 * caller turns that into its own typed error (with a log tail).
 */
export async function pollUntil<T>(
  attempt: () => Promise<T | undefined>,
  options: PollUntilOptions,
): Promise<T | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  let stopped = false;
  void options.stopWhen?.then(
    () => (stopped = true),
    () => (stopped = true),
  );
  const waits: Promise<unknown>[] = [];
  if (options.stopWhen !== undefined) waits.push(options.stopWhen.catch(() => undefined));
  while (!stopped && Date.now() < deadline) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (stopped) break;
    await Promise.race([
      delay(Math.min(options.intervalMs ?? 100, Math.max(0, deadline - Date.now()))),
      ...waits,
    ]);
  }
  return undefined;
}
