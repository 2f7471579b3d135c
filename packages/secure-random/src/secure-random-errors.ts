import { FastpathError } from '@fastpath/core';

// Every failure of a draw is one of these. A draw either returns a fully filled buffer or throws:
// there is no partial success and no fallback to weaker randomness.

/** The random device could not be opened (missing, no permission, not a file). */
export class DeviceUnavailableError extends FastpathError {
  /** The device path that was tried. */
  readonly path: string;
  constructor(path: string, cause: unknown) {
    super('ERR_SECURE_RANDOM_DEVICE_UNAVAILABLE', `cannot open random device "${path}": ${reason(cause)}`, {
      cause,
    });
    this.path = path;
  }
}

/** Reading the random device failed (an I/O error, or the path is a directory). */
export class DeviceReadError extends FastpathError {
  /** The device path that was read. */
  readonly path: string;
  constructor(path: string, cause: unknown) {
    super('ERR_SECURE_RANDOM_DEVICE_READ', `cannot read random device "${path}": ${reason(cause)}`, {
      cause,
    });
    this.path = path;
  }
}

/** The random device reached end of file before it delivered the bytes asked for. */
export class DeviceShortReadError extends FastpathError {
  /** The device path that was read. */
  readonly path: string;
  /** How many bytes one refill needed. */
  readonly expectedBytes: number;
  /** How many bytes the device delivered before end of file. */
  readonly actualBytes: number;
  constructor(path: string, expectedBytes: number, actualBytes: number) {
    super(
      'ERR_SECURE_RANDOM_SHORT_READ',
      `random device "${path}" ended after ${actualBytes} of ${expectedBytes} bytes`,
    );
    this.path = path;
    this.expectedBytes = expectedBytes;
    this.actualBytes = actualBytes;
  }
}

/** The operating system / OpenSSL generator behind `crypto.randomFillSync` reported a failure. */
export class RandomSourceError extends FastpathError {
  constructor(cause: unknown) {
    super('ERR_SECURE_RANDOM_SOURCE_FAILED', `the system random generator failed: ${reason(cause)}`, {
      cause,
    });
  }
}

/** A draw asked for a byte count that is not an integer from 0 to {@link MAX_DRAW_BYTES}. */
export class InvalidDrawSizeError extends FastpathError {
  constructor(size: unknown, maxBytes: number) {
    super(
      'ERR_SECURE_RANDOM_INVALID_SIZE',
      `a draw size must be an integer from 0 to ${maxBytes}, got ${describe(size)}`,
    );
  }
}

/**
 * A draw was given memory it cannot fill: `fill` something that is not an `ArrayBufferView` (a
 * Buffer, typed array or DataView), or `fillSessionKeys` a part that is missing, not a Uint8Array,
 * of the wrong size, or the same view as another part.
 */
export class InvalidDrawTargetError extends FastpathError {
  /** @param need what the target should have been, as the start of the message. */
  constructor(target: unknown, need = 'fill needs a Buffer, typed array or DataView') {
    super('ERR_SECURE_RANDOM_INVALID_TARGET', `${need}, got ${describe(target)}`);
  }
}

/** A draw was made on a generator after `close()`. */
export class SecureRandomClosedError extends FastpathError {
  constructor(impl: string) {
    super('ERR_SECURE_RANDOM_CLOSED', `this ${impl} secure random is closed`);
  }
}

function reason(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code === undefined ? cause.message : `${code} (${cause.message})`;
  }
  return String(cause);
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (value === null) return 'null';
  if (ArrayBuffer.isView(value)) return `${value.constructor.name} of ${value.byteLength} bytes`;
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value;
}
