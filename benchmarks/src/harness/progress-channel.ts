import type { ProgressEvent } from './progress.js';

/**
 * The environment variable that tells a scenario's process it runs under `all`: its progress goes
 * to the parent over the IPC channel, and a lost parent stops it like Ctrl-C.
 */
export const PROGRESS_CHANNEL_ENV = 'FASTPATH_BENCH_PROGRESS_CHANNEL';

/** A message from a scenario's process to the `all` that started it. */
export interface ProgressMessage {
  type: 'fastpath-bench-progress';
  event: ProgressEvent;
}

export function isProgressMessage(value: unknown): value is ProgressMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'fastpath-bench-progress' &&
    typeof (value as { event?: unknown }).event === 'object'
  );
}

/** In a process started by `all`: the observer that sends progress to the parent; else undefined. */
export function progressChannel(): ((event: ProgressEvent) => void) | undefined {
  const send = process.send?.bind(process);
  if (!send || process.env[PROGRESS_CHANNEL_ENV] !== '1') return undefined;
  return (event) => {
    // A parent that went away must not crash the scenario: its results are still written.
    if (process.connected)
      send({ type: 'fastpath-bench-progress', event } satisfies ProgressMessage, undefined, {}, () => {});
  };
}
