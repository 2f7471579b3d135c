// The message protocol between a scenario and its worker threads or child processes: numbered
// calls, each answered by a result or an error. Values travel by structured clone, so results may
// hold Buffers and typed arrays; a LatencyRecorder travels as its toBase64() string.
import { BenchmarkProcessError } from './benchmark-errors.js';

/**
 * How a TypeScript module runs in a child process: Node itself (`process.execPath`) with tsx
 * loaded and the `development` export condition, so workspace packages resolve to their sources.
 */
export const TS_EXEC_ARGV: readonly string[] = Object.freeze([
  '--import',
  'tsx',
  '--conditions',
  'development',
]);

export interface CallMessage {
  kind: 'bench-call';
  id: number;
  input: unknown;
}

export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
}

export type ReplyMessage =
  | { kind: 'bench-ready' }
  | { kind: 'bench-result'; id: number; value: unknown }
  | { kind: 'bench-error'; id: number; error: SerializedError };

export function isCallMessage(message: unknown): message is CallMessage {
  return typeof message === 'object' && message !== null && (message as CallMessage).kind === 'bench-call';
}

export function isReplyMessage(message: unknown): message is ReplyMessage {
  if (typeof message !== 'object' || message === null) return false;
  const kind = (message as { kind?: unknown }).kind;
  return kind === 'bench-ready' || kind === 'bench-result' || kind === 'bench-error';
}

export function serializeError(err: unknown): SerializedError {
  if (err instanceof Error) {
    const out: SerializedError = { name: err.name, message: err.message };
    if (err.stack !== undefined) out.stack = err.stack;
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') out.code = code;
    return out;
  }
  return { name: 'Error', message: String(err) };
}

/** Options of one call to a worker or child. */
export interface CallOptions {
  /** Reject when no answer came within this many ms (the thread or process keeps running). Default: none. */
  timeoutMs?: number;
}

/** Calls in flight to one worker or child, matched to their answers by id. */
export class PendingCalls {
  readonly #where: string;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  #failure: BenchmarkProcessError | undefined;

  constructor(where: string) {
    this.#where = where;
  }

  get size(): number {
    return this.#pending.size;
  }

  call(send: (message: CallMessage) => void, input: unknown, options: CallOptions = {}): Promise<unknown> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        this.#pending.delete(id);
      };
      this.#pending.set(id, {
        resolve: (v) => {
          done();
          resolve(v);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.#pending
            .get(id)
            ?.reject(new BenchmarkProcessError(`${this.#where}: no answer within ${options.timeoutMs} ms`));
        }, options.timeoutMs);
      }
      try {
        send({ kind: 'bench-call', id, input });
      } catch (cause) {
        this.#pending
          .get(id)
          ?.reject(new BenchmarkProcessError(`${this.#where}: could not send a call`, { cause }));
      }
    });
  }

  /** Settles the call a reply answers; returns false for replies that answer no call. */
  settle(reply: ReplyMessage): boolean {
    if (reply.kind === 'bench-ready') return false;
    const entry = this.#pending.get(reply.id);
    if (!entry) return false;
    if (reply.kind === 'bench-result') entry.resolve(reply.value);
    else {
      const e = reply.error;
      const err = new BenchmarkProcessError(
        `${this.#where}: ${e.name}${e.code ? ` ${e.code}` : ''}: ${e.message}`,
      );
      if (e.stack) err.stack = `${err.name}: ${err.message}\n  --- in ${this.#where} ---\n${e.stack}`;
      entry.reject(err);
    }
    return true;
  }

  /** Rejects every call in flight, and every later call, with `error`. */
  failAll(error: BenchmarkProcessError): void {
    this.#failure ??= error;
    for (const entry of [...this.#pending.values()]) entry.reject(error);
  }
}
