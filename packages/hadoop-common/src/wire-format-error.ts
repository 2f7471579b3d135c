import { FastpathError } from '@fastpath/core';

/**
 * Bytes or a value that cannot be read or written in Hadoop's wire formats: garbage, truncated or
 * oversized input, an unknown identifier version, or a field out of the range the format allows.
 * Code `ERR_WIRE_FORMAT`, never retriable: the same input fails the same way every time.
 *
 * @example
 * ```ts
 * try {
 *   Token.fromUrlString(header);
 * } catch (err) {
 *   if (err instanceof WireFormatError) return reply(400, 'malformed delegation token');
 *   throw err;
 * }
 * ```
 */
export class WireFormatError extends FastpathError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('ERR_WIRE_FORMAT', message, options);
  }
}
