import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { systemClock, type Clock } from '@fastpath/core';

/** Hadoop's `KMS.KMSOp` names, as they appear in audit lines. */
export type KmsOp =
  | 'CREATE_KEY'
  | 'DELETE_KEY'
  | 'ROLL_NEW_VERSION'
  | 'INVALIDATE_CACHE'
  | 'GET_KEYS'
  | 'GET_KEYS_METADATA'
  | 'GET_KEY_VERSIONS'
  | 'GET_METADATA'
  | 'GET_KEY_VERSION'
  | 'GET_CURRENT_KEY'
  | 'GENERATE_EEK'
  | 'DECRYPT_EEK'
  | 'REENCRYPT_EEK'
  | 'REENCRYPT_EEK_BATCH';

/** Audit statuses. */
export type AuditStatus = 'OK' | 'UNAUTHORIZED' | 'UNAUTHENTICATED' | 'ERROR';

/** Operations whose repeated successes by one user on one key are aggregated per window. */
export const AGGREGATED_OPS: ReadonlySet<KmsOp> = new Set<KmsOp>([
  'GET_KEY_VERSION',
  'GET_CURRENT_KEY',
  'DECRYPT_EEK',
  'GENERATE_EEK',
  'REENCRYPT_EEK',
]);

/** Options of {@link KmsAudit}. */
export interface KmsAuditOptions {
  /** The audit log file (appended to, mode 0600). */
  file: string;
  /** Hadoop's `hadoop.kms.audit.aggregation.window.ms`. */
  aggregationWindowMs: number;
  clock?: Clock;
}

interface Aggregate {
  readonly op: KmsOp;
  readonly user: string;
  readonly key: string;
  readonly extra: string;
  readonly startMs: number;
  writtenMs: number;
  count: number;
}

/**
 * Hadoop's KMS audit log, in its line format (`%d{ISO8601} %m`):
 * `2024-05-01 12:00:00,123 OK[op=CREATE_KEY, key=k1, user=alice] UserProvidedMaterial:false Description:null`.
 *
 * Successes of GET_KEY_VERSION, GET_CURRENT_KEY, DECRYPT_EEK, GENERATE_EEK and REENCRYPT_EEK are
 * aggregated per user, key and operation: the first is written at once
 * (`accessCount=1, interval=0ms`), then every window the count since is written
 * (`OK[op=…, key=…, user=…, accessCount=<n>, interval=<ms>ms]`), as Hadoop's `KMSAudit` does.
 *
 * Lines never hold key material, EEKs or token passwords: callers pass names and counts only,
 * URLs are written with `delegation` and `token` values replaced, and control characters in
 * names are escaped so a key or user name cannot forge a line.
 */
export class KmsAudit {
  readonly #stream: WriteStream;
  readonly #windowMs: number;
  readonly #clock: Clock;
  readonly #aggregates = new Map<string, Aggregate>();
  readonly #timer: ReturnType<typeof setInterval>;
  #closed = false;
  // Lines of the current event-loop turn, written to the stream together: one write per turn
  // instead of one per request (each stream write costs more than formatting its line).
  #pending = '';
  #flushScheduled = false;
  // The timestamp up to the second, reused while the second lasts.
  #stampSecond = Number.NaN;
  #stampPrefix = '';

  constructor(options: KmsAuditOptions) {
    mkdirSync(dirname(options.file), { recursive: true, mode: 0o700 });
    this.#stream = createWriteStream(options.file, { flags: 'a', mode: 0o600 });
    // A failing audit disk must not crash the server; the error surfaces in the server log.
    this.#stream.on('error', () => undefined);
    this.#windowMs = options.aggregationWindowMs;
    this.#clock = options.clock ?? systemClock;
    this.#timer = setInterval(() => this.sweep(), Math.max(1, Math.floor(this.#windowMs / 10)));
    this.#timer.unref();
  }

  ok(user: string, op: KmsOp, key: string | undefined, extra: string): void {
    if (key !== undefined && key !== '' && user !== '' && AGGREGATED_OPS.has(op)) {
      const id = `${user}#${key}#${op}`;
      const existing = this.#aggregates.get(id);
      if (existing) {
        existing.count++;
        return;
      }
      const now = this.#clock.now();
      const aggregate: Aggregate = { op, user, key, extra, startMs: now, writtenMs: now, count: 1 };
      this.#aggregates.set(id, aggregate);
      // As in Hadoop, the first access is written at once and still counted in its window.
      this.#writeAggregate(aggregate, now, false);
      return;
    }
    this.#simple('OK', op, key, user, extra);
  }

  unauthorized(user: string, op: KmsOp, key: string | undefined): void {
    const id = `${user}#${key}#${op}`;
    const pending = this.#aggregates.get(id);
    if (pending) {
      if (pending.count > 0) this.#writeAggregate(pending, this.#clock.now(), true);
      this.#aggregates.delete(id);
    }
    this.#simple('UNAUTHORIZED', op, key, user, '');
  }

  error(user: string | undefined, method: string, message: string): void {
    this.#simple('ERROR', undefined, undefined, user, `Method:'${method}' Exception:'${message}'`);
  }

  unauthenticated(remoteHost: string, method: string, url: string, message: string): void {
    this.#simple(
      'UNAUTHENTICATED',
      undefined,
      undefined,
      undefined,
      `RemoteHost:${remoteHost} Method:${method} URL:${redactUrl(url)} ErrorMsg:'${message}'`,
    );
  }

  /** Writes the counts of windows that ended; drops aggregates idle for a whole window. */
  sweep(): void {
    const now = this.#clock.now();
    for (const [id, aggregate] of this.#aggregates) {
      if (now - aggregate.writtenMs < this.#windowMs) continue;
      if (aggregate.count > 0) {
        this.#writeAggregate(aggregate, now, true);
      } else {
        this.#aggregates.delete(id);
      }
    }
  }

  /** Writes pending counts and closes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    clearInterval(this.#timer);
    const now = this.#clock.now();
    for (const aggregate of this.#aggregates.values())
      if (aggregate.count > 0) this.#writeAggregate(aggregate, now, true);
    this.#aggregates.clear();
    this.#flush();
    this.#closed = true;
    await new Promise<void>((resolve) => this.#stream.end(resolve));
  }

  #writeAggregate(aggregate: Aggregate, now: number, reset: boolean): void {
    this.#line(
      `OK[op=${aggregate.op}, key=${escape(aggregate.key)}, user=${escape(aggregate.user)}, accessCount=${aggregate.count}, interval=${now - aggregate.startMs}ms] ${escape(aggregate.extra)}`,
    );
    if (reset) {
      aggregate.count = 0;
      aggregate.writtenMs = now;
    }
  }

  #simple(
    status: AuditStatus,
    op: KmsOp | undefined,
    key: string | undefined,
    user: string | undefined,
    extra: string,
  ): void {
    // `STATUS[op=…, key=…, user=…] extra`, the bracket only when one of the three is there. Built
    // by concatenation: a line per request, so no parts array and no join.
    let fields = op === undefined ? '' : `op=${op}`;
    if (key !== undefined && key !== '') fields += `${fields === '' ? '' : ', '}key=${escape(key)}`;
    if (user !== undefined && user !== '') fields += `${fields === '' ? '' : ', '}user=${escape(user)}`;
    this.#line(fields === '' ? `${status} ${escape(extra)}` : `${status}[${fields}] ${escape(extra)}`);
  }

  #line(message: string): void {
    if (this.#closed) return;
    this.#pending += `${this.#timestamp(this.#clock.now())} ${message}\n`;
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    }
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#pending === '' || this.#closed) return;
    const text = this.#pending;
    this.#pending = '';
    this.#stream.write(text);
  }

  /** {@link formatLogTime} of `ms`, formatting the date and time once per second. */
  #timestamp(ms: number): string {
    const t = Math.trunc(ms); // as `new Date(ms)` does
    const second = Math.floor(t / 1000);
    if (second !== this.#stampSecond) {
      // Local-time offsets are whole seconds, so everything but the milliseconds is fixed
      // within one second of epoch time.
      this.#stampPrefix = formatLogTime(new Date(t)).slice(0, -3);
      this.#stampSecond = second;
    }
    const milli = t - second * 1000;
    return `${this.#stampPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}`;
  }
}

/** log4j's `%d{ISO8601}`: `yyyy-MM-dd HH:mm:ss,SSS` in local time. */
export function formatLogTime(date: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return (
    `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ` +
    `${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())},${p(date.getMilliseconds(), 3)}`
  );
}

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f\u2028\u2029]/;
// eslint-disable-next-line no-control-regex
const UNSAFE_ALL = /[\u0000-\u001f\u007f\u2028\u2029]/g;

/** Control characters as escapes, so names cannot break or forge lines. */
function escape(text: string): string {
  // Names almost never hold one: a test, and the text itself, instead of a replace per field.
  if (text === '' || !UNSAFE.test(text)) return text;
  return text.replace(UNSAFE_ALL, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** A URL with the values of the token-bearing parameters (`delegation`, `token`) replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // Keep the raw name.
      }
      return eq !== -1 && (decoded === 'delegation' || decoded === 'token') ? `${name}=<redacted>` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}
