// Helpers shared by the integration tests (bounded waits on a condition: `@fastpath/test-support`).

/** Rejects when `promise` has not settled within `timeoutMs`. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what} did not settle within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

// One copy of the process check, shared by every fixture's tests.
export { isAlive } from '@fastpath/test-support';
