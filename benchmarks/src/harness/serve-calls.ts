import { parentPort } from 'node:worker_threads';
import { BenchmarkProcessError } from './benchmark-errors.js';
import { isCallMessage, serializeError, type ReplyMessage } from './call-protocol.js';

/**
 * Makes the current worker thread or child process answer calls from {@link startWorker} or
 * {@link startChild}: each call's input goes to `handler`, and its result (or error) goes back.
 * Calls may overlap; a handler that must not run twice at once serialises itself.
 *
 * @example
 * ```ts
 * // src/scenarios/secure-random/draw-worker.ts
 * import { serveCalls } from '../../harness/index.js';
 * serveCalls(async (input: { durationMs: number }) => {
 *   const latency = new LatencyRecorder();
 *   const ops = await drawFor(input.durationMs, latency);
 *   return { ops, latency: latency.toBase64() };
 * });
 * ```
 */
export function serveCalls<I, O>(handler: (input: I) => O | Promise<O>): void {
  let post: (message: ReplyMessage) => void;
  let listen: (listener: (message: unknown) => void) => void;
  if (parentPort) {
    const port = parentPort;
    post = (m) => port.postMessage(m);
    listen = (l) => port.on('message', l);
  } else if (process.send) {
    post = (m) => {
      if (process.connected) process.send!(m);
    };
    listen = (l) => process.on('message', l);
  } else {
    throw new BenchmarkProcessError(
      'serveCalls: not in a worker thread nor in a child process with an IPC channel; start this module with startWorker() or startChild()',
    );
  }
  listen((message) => {
    if (!isCallMessage(message)) return;
    const { id } = message;
    Promise.resolve()
      .then(() => handler(message.input as I))
      .then(
        (value) => post({ kind: 'bench-result', id, value }),
        (err: unknown) => post({ kind: 'bench-error', id, error: serializeError(err) }),
      )
      .catch((err: unknown) => {
        // The value could not be sent (not cloneable): answer with that, so the caller does not hang.
        post({ kind: 'bench-error', id, error: serializeError(err) });
      });
  });
  post({ kind: 'bench-ready' });
}
