// Bounded waiting for tests: on conditions, never fixed sleeps; a failure names what it awaited.

/** Bounds of {@link waitFor} and {@link eventually}. */
export interface WaitOptions {
  /** How long to keep trying, in ms. Default: 10 000. */
  timeoutMs?: number;
  /** Pause between two tries, in ms. Default: 10. */
  intervalMs?: number;
}

/**
 * The one polling loop of both waits: calls `attempt` until it reports done, pausing `intervalMs`
 * between tries; after `timeoutMs` calls `fail` with the last error `attempt` threw (if any).
 */
async function poll<T>(
  attempt: () => Promise<{ done: true; value: T } | { done: false }>,
  { timeoutMs = 10_000, intervalMs = 10 }: WaitOptions,
  fail: (lastError: unknown) => never,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const result = await attempt();
      if (result.done) return result.value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) fail(lastError);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Polls `condition` until it returns a truthy value (or a promise of one) and resolves with it;
 * rejects with `what` after `timeoutMs`. Tests wait on conditions, never on fixed sleeps.
 */
export function waitFor<T>(
  what: string,
  condition: () => T | Promise<T>,
  options: WaitOptions = {},
): Promise<NonNullable<T>> {
  return poll(
    async () => {
      const value = await condition();
      return value ? { done: true, value } : { done: false };
    },
    options,
    (lastError) => {
      throw new Error(`timed out after ${options.timeoutMs ?? 10_000} ms waiting for ${what}`, {
        cause: lastError,
      });
    },
  );
}

/**
 * Calls `fn` until it returns without throwing (an `expect` inside it, say) and resolves with what
 * it returned; after `timeoutMs` rethrows the last error as it was, so the test fails with the
 * assertion's own message.
 *
 * @example
 * ```ts
 * await eventually(async () => expect(await proxy.openConnections()).toBe(0), { timeoutMs: 10_000 });
 * ```
 */
export function eventually<T>(fn: () => T | Promise<T>, options: WaitOptions = {}): Promise<T> {
  return poll(
    async () => ({ done: true, value: await fn() }),
    options,
    (lastError) => {
      throw lastError;
    },
  );
}

/** Resolves with the settled state of `promise` right now: whether it is still pending. */
export async function isPending(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  // Let everything already queued run first, so "pending" means blocked, not merely not yet run.
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  const winner = await Promise.race([
    promise.then(
      () => 'settled',
      () => 'settled',
    ),
    Promise.resolve(marker),
  ]);
  return winner === marker;
}

/** A promise with its resolve function, for holding a hook until the test releases it. */
export function gate(): {
  promise: Promise<void>;
  open: () => void;
  reached: Promise<void>;
  arrive: () => void;
} {
  let open!: () => void;
  let arrive!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  return { promise, open, reached, arrive };
}
