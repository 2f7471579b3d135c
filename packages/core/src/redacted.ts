import { inspect } from 'node:util';

const REDACTED = '<redacted>';

/**
 * A box for a secret (key material, token passwords, keystore passwords). Every way a value is
 * normally turned into text — `String()`, template literals, `JSON.stringify`, `util.inspect`,
 * `console.log` — prints `<redacted>`; only {@link Redacted.unwrap} hands the secret out, so a
 * leak needs a deliberate call that shows up in review.
 *
 * @example
 * ```ts
 * const password = new Redacted(Buffer.from('s3cret'));
 * logger.info({ password }); // {"password":"<redacted>"}
 * hmac(password.unwrap());
 * ```
 */
export class Redacted<T> {
  readonly #value: T;

  constructor(value: T) {
    this.#value = value;
  }

  /** The secret itself. Call it only where the secret is used, never to log or to build a message. */
  unwrap(): T {
    return this.#value;
  }

  /** Always `<redacted>`, so `String()` and template literals never show the secret. */
  toString(): string {
    return REDACTED;
  }

  /** Always `<redacted>`, so `JSON.stringify` (and JSON loggers) never show the secret. */
  toJSON(): string {
    return REDACTED;
  }

  /** Always `<redacted>`, so `util.inspect` and `console.log` never show the secret. */
  [inspect.custom](): string {
    return REDACTED;
  }

  /** Wraps a value unless it is already wrapped. */
  static of<T>(value: T | Redacted<T>): Redacted<T> {
    return value instanceof Redacted ? value : new Redacted(value);
  }
}
