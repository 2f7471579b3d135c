/** The fields of a Hadoop-style error body: `{"RemoteException": {exception, message, javaClassName}}`. */
export interface RemoteExceptionBody {
  exception: string;
  message: string;
  javaClassName: string;
}

/**
 * Reads the Hadoop RemoteException of an HTTP error body, failing the test (naming what was
 * wrong) when the body is not one: not JSON, no `RemoteException` object, or a field that is not a
 * string. Returns the three fields, typed, for the test's own assertions.
 *
 * @example
 * ```ts
 * expect(remoteExceptionOf(res.body).exception).toBe('AuthorizationException');
 * ```
 */
export function remoteExceptionOf(body: string | Buffer): RemoteExceptionBody {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`expected a RemoteException body, got text that is not JSON: ${text.slice(0, 200)}`, {
      cause: error,
    });
  }
  const remote = isObject(parsed) ? parsed['RemoteException'] : undefined;
  if (!isObject(remote)) {
    throw new Error(`expected a RemoteException body, got ${text.slice(0, 200)}`);
  }
  const field = (name: keyof RemoteExceptionBody): string => {
    const value = remote[name];
    if (typeof value !== 'string') {
      throw new Error(`RemoteException.${name} is not a string in ${text.slice(0, 200)}`);
    }
    return value;
  };
  return { exception: field('exception'), message: field('message'), javaClassName: field('javaClassName') };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
