/** What {@link expectError} checks beyond the class. */
export interface ExpectedError {
  /** The stable `code` the error must carry. */
  code?: string;
  /** Whether the error must say a retry can help. */
  retriable?: boolean;
}

/**
 * Runs `fn`, which must throw an instance of `type` (with `code` and `retriable` as given), and
 * returns the error for further assertions. Fails the test when `fn` returns or throws anything
 * else.
 *
 * @example
 * ```ts
 * const err = expectError(() => Token.fromUrlString('!'), WireFormatError, { code: 'ERR_WIRE_FORMAT' });
 * expect(err.message).toMatch(/alphabet/);
 * ```
 */
export function expectError<E extends Error>(
  fn: () => unknown,
  type: abstract new (...args: never[]) => E,
  expected: ExpectedError = {},
): E {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  if (thrown === undefined) throw new Error(`expected a ${type.name}, but nothing was thrown`);
  expect(thrown).toBeInstanceOf(type);
  const error = thrown as E & { code?: unknown; retriable?: unknown };
  if (expected.code !== undefined) expect(error.code).toBe(expected.code);
  if (expected.retriable !== undefined) expect(error.retriable).toBe(expected.retriable);
  return error;
}
