import { InvalidOptionError } from './fastpath-error.js';

// Small checks every options object runs at construction, so a bad value fails where it was
// given and the error names the field, instead of surfacing later as NaN or a hang.

/** Throws unless `value` is an integer in `[min, max]`. */
export function checkInteger(option: string, value: unknown, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidOptionError(option, `expected an integer from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

/** Throws unless `value` is a finite number in `[min, max]`. */
export function checkNumber(option: string, value: unknown, min = 0, max = Number.MAX_VALUE): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new InvalidOptionError(option, `expected a number from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

/** Throws unless `value` is one of `allowed`. */
export function checkOneOf<T extends string>(option: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new InvalidOptionError(
      option,
      `expected one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${describe(value)}`,
    );
  }
  return value as T;
}

/** Throws unless `value` is a non-empty string. */
export function checkNonEmptyString(option: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidOptionError(option, `expected a non-empty string, got ${describe(value)}`);
  }
  return value;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  return typeof value;
}
