// Bounded waiting for tests: on conditions, never fixed sleeps; a failure names what it awaited.
/**
 * Polls `condition` until it returns a truthy value (or a promise of one) and resolves with it;
 * rejects with `what` after `timeoutMs`. Tests wait on conditions, never on fixed sleeps.
 */
export async function waitFor<T>(
  what: string,
  condition: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
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
