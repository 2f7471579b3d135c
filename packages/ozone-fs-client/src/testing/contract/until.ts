/**
 * Polls `condition` every 10 ms until it holds (a throw counts as not yet); rejects naming `what`
 * after `timeoutMs`. The suites wait on conditions, never on fixed sleeps.
 */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await condition()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
