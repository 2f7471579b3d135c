import { KmsError } from '../kms-errors.js';
import { errorFromHttpResponse, errorFromTransport, parseRemoteException } from './response-errors.js';
import type { CallContext } from './response-errors.js';

const KEY_CALL: CallContext = { operation: 'getCurrentVersion', key: 'k1', kind: 'key' };
const TOKEN_CALL: CallContext = { operation: 'cancelDelegationToken', kind: 'token' };

const remote = (exception: string, message: string, javaClassName = `x.y.${exception}`): Buffer =>
  Buffer.from(JSON.stringify({ RemoteException: { message, exception, javaClassName } }));

function mapped(
  status: number,
  body: Buffer,
  call = KEY_CALL,
  challenge?: string,
  reason?: string,
): KmsError {
  return errorFromHttpResponse(call, status, challenge, body, reason);
}

describe('errorFromHttpResponse', () => {
  it.each([
    [401, 'AuthenticationException', 'Authentication required', 'ERR_KMS_AUTHENTICATION_REQUIRED'],
    [403, 'AuthorizationException', "User:bob not allowed to do 'GET_KEYS'", 'ERR_KMS_ACCESS_DENIED'],
    [403, 'AccessControlException', 'Permission denied', 'ERR_KMS_ACCESS_DENIED'],
    [403, 'AuthenticationException', 'InvalidToken: token is expired', 'ERR_KMS_AUTHENTICATION_FAILED'],
    [403, 'InvalidToken', 'token (x) is expired', 'ERR_KMS_AUTHENTICATION_FAILED'],
    [400, 'IllegalArgumentException', "Parameter 'name' cannot be empty", 'ERR_KMS_BAD_REQUEST'],
    [400, 'IllegalArgumentException', "'k1@1' not found", 'ERR_KMS_KEY_NOT_FOUND'],
    [400, 'IllegalArgumentException', "KeyVersion name 'k1@3' does not exist", 'ERR_KMS_KEY_NOT_FOUND'],
    [404, 'IOException', 'Key k1 not found', 'ERR_KMS_KEY_NOT_FOUND'],
    [404, 'NotFoundException', 'HTTP 404 Not Found', 'ERR_KMS_NOT_FOUND'],
    [405, 'NotAllowedException', 'HTTP 405 Method Not Allowed', 'ERR_KMS_BAD_REQUEST'],
    [409, 'IOException', 'Key k1 already exists', 'ERR_KMS_KEY_EXISTS'],
    [413, 'IOException', 'body too large', 'ERR_KMS_BAD_REQUEST'],
    [500, 'IOException', 'Key k1 does not exist in jceks://file/kms.keystore', 'ERR_KMS_KEY_NOT_FOUND'],
    [500, 'IOException', 'Key k1 already exists in jceks://file/kms.keystore', 'ERR_KMS_KEY_EXISTS'],
    // Hadoop's KMS answers a rollover of a missing key this way.
    [500, 'IOException', "Can't find Metadata for key k1", 'ERR_KMS_KEY_NOT_FOUND'],
    [500, 'RuntimeException', 'Internal server error', 'ERR_KMS_SERVER'],
    [503, 'IOException', 'shutting down', 'ERR_KMS_UNAVAILABLE'],
    [408, 'IOException', 'request timed out', 'ERR_KMS_UNAVAILABLE'],
  ])('HTTP %d %s "%s" is %s', (status, exception, message, code) => {
    const err = mapped(status, remote(exception, message));
    expect(err).toBeInstanceOf(KmsError);
    expect(err.code).toBe(code);
    expect(err.status).toBe(status);
    expect(err.remoteException).toBe(exception);
    expect(err.remoteClassName).toBe(`x.y.${exception}`);
    expect(err.remoteMessage).toBe(message);
    expect(err.operation).toBe('getCurrentVersion');
    expect(err.key).toBe('k1');
    expect(err.message).toContain(message);
    expect(err.message).toContain(`HTTP ${status}`);
    expect(err.retriable).toBe(code === 'ERR_KMS_UNAVAILABLE');
  });

  it('maps any 404 of a token operation to ERR_KMS_TOKEN_CANCEL_FAILED', () => {
    const err = mapped(404, remote('InvalidToken', 'Invalid delegation token, cannot cancel'), TOKEN_CALL);
    expect(err.code).toBe('ERR_KMS_TOKEN_CANCEL_FAILED');
    expect(mapped(404, Buffer.alloc(0), TOKEN_CALL).code).toBe('ERR_KMS_TOKEN_CANCEL_FAILED');
  });

  it("reads a token operation's failure from the status line, as Hadoop's filter sends it (no body)", () => {
    const renew: CallContext = { operation: 'renewDelegationToken', kind: 'token' };
    const reason =
      'org.apache.hadoop.security.AccessControlException: client tries to renew a token (…) with non-matching renewer client1';
    const refused = mapped(403, Buffer.alloc(0), renew, undefined, reason);
    expect(refused.code).toBe('ERR_KMS_AUTHENTICATION_FAILED');
    expect(refused.remoteMessage).toBe(reason);
    expect(refused.remoteException).toBeUndefined();
    const cancel = mapped(
      404,
      Buffer.alloc(0),
      TOKEN_CALL,
      undefined,
      'Invalid delegation token, cannot cancel',
    );
    expect(cancel.code).toBe('ERR_KMS_TOKEN_CANCEL_FAILED');
    expect(cancel.remoteMessage).toBe('Invalid delegation token, cannot cancel');
    const wrongMethod = mapped(400, Buffer.alloc(0), renew, undefined, 'Wrong HTTP method [GET] …');
    expect(wrongMethod).toMatchObject({
      code: 'ERR_KMS_BAD_REQUEST',
      remoteMessage: 'Wrong HTTP method [GET] …',
    });
    // The standard phrase says nothing: a bare 403 stays a denial, with no message.
    const bare = mapped(403, Buffer.alloc(0), renew, undefined, 'Forbidden');
    expect(bare.code).toBe('ERR_KMS_ACCESS_DENIED');
    expect(bare.remoteMessage).toBeUndefined();
    // Key operations are answered by the REST resource, never from the status line.
    expect(mapped(403, Buffer.alloc(0), KEY_CALL, undefined, reason).code).toBe('ERR_KMS_ACCESS_DENIED');
    // A RemoteException body wins over the status line.
    const body = mapped(
      403,
      remote('AuthorizationException', 'User: client is not allowed to impersonate foo'),
      renew,
      undefined,
      'Forbidden',
    );
    expect(body).toMatchObject({
      code: 'ERR_KMS_ACCESS_DENIED',
      remoteMessage: 'User: client is not allowed to impersonate foo',
    });
  });

  it('does not read "not found" in a token error as a missing key', () => {
    const call: CallContext = { operation: 'renewDelegationToken', kind: 'token' };
    expect(mapped(500, remote('IOException', 'Token not found'), call).code).toBe('ERR_KMS_SERVER');
  });

  it('treats a bare 403 with a challenge as a missing login, and one without as a denial', () => {
    const bare = mapped(403, Buffer.alloc(0), TOKEN_CALL, 'PseudoAuth');
    expect(bare.code).toBe('ERR_KMS_AUTHENTICATION_REQUIRED');
    expect(bare.remoteException).toBeUndefined();
    expect(mapped(403, Buffer.alloc(0), KEY_CALL).code).toBe('ERR_KMS_ACCESS_DENIED');
  });

  it('copes with bodies that are not RemoteException JSON', () => {
    const html = mapped(401, Buffer.from('<html><body>HTTP ERROR 401</body></html>'));
    expect(html.code).toBe('ERR_KMS_AUTHENTICATION_REQUIRED');
    expect(html.remoteMessage).toBeUndefined();
    expect(html.message).not.toContain('<html>');
    expect(mapped(502, Buffer.from('Bad Gateway')).code).toBe('ERR_KMS_UNAVAILABLE');
    expect(mapped(500, Buffer.from('{"RemoteException": 3}')).code).toBe('ERR_KMS_SERVER');
    expect(mapped(404, Buffer.from('Not Found')).code).toBe('ERR_KMS_NOT_FOUND');
    expect(mapped(302, Buffer.alloc(0)).code).toBe('ERR_KMS_BAD_RESPONSE');
  });
});

describe('parseRemoteException', () => {
  it('reads the three fields and shortens a huge message', () => {
    expect(parseRemoteException(remote('IOException', 'boom', 'java.io.IOException'))).toEqual({
      exception: 'IOException',
      javaClassName: 'java.io.IOException',
      message: 'boom',
    });
    const long = parseRemoteException(remote('IOException', 'x'.repeat(5000)));
    expect(long?.message?.length).toBeLessThan(2010);
    expect(parseRemoteException(Buffer.from('[1,2]'))).toBeUndefined();
    expect(parseRemoteException(Buffer.from('{"RemoteException":{"message":7}}'))).toEqual({});
  });
});

describe('errorFromTransport', () => {
  const ctx = { aborted: false, timedOut: false, timeoutMs: 500 };
  const sys = (code: string): Error => Object.assign(new Error(`connect ${code}`), { code });

  it.each([
    ['ECONNREFUSED', 'ERR_KMS_UNREACHABLE', true],
    ['ECONNRESET', 'ERR_KMS_UNREACHABLE', true],
    ['UND_ERR_SOCKET', 'ERR_KMS_UNREACHABLE', true],
    ['UND_ERR_CONNECT_TIMEOUT', 'ERR_KMS_UNREACHABLE', true],
    ['ENOTFOUND', 'ERR_KMS_UNREACHABLE', true],
    ['UND_ERR_HEADERS_TIMEOUT', 'ERR_KMS_TIMEOUT', true],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'ERR_KMS_TLS', false],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_KMS_TLS', false],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_KMS_TLS', false],
    ['UND_ERR_DESTROYED', 'ERR_KMS_CLIENT_CLOSED', false],
    ['HPE_INVALID_CONSTANT', 'ERR_KMS_BAD_RESPONSE', false],
    ['UND_ERR_INVALID_ARG', 'ERR_KMS_INVALID_ARGUMENT', false],
  ])('%s is %s', (code, expected, retriable) => {
    const cause = sys(code);
    const err = errorFromTransport(KEY_CALL, cause, ctx);
    expect(err.code).toBe(expected);
    expect(err.retriable).toBe(retriable);
    expect(err.status).toBeUndefined();
    if (expected !== 'ERR_KMS_INVALID_ARGUMENT') expect(err.cause).toBe(cause);
  });

  it('a header overflow says the answer was too large, not that the server is unreachable', () => {
    const err = errorFromTransport(KEY_CALL, sys('UND_ERR_HEADERS_OVERFLOW'), ctx);
    expect(err.code).toBe('ERR_KMS_BAD_RESPONSE');
    expect(err.retriable).toBe(false);
    expect(err.message).toMatch(/headers are larger than the \d+ bytes this client reads/);
  });

  it('finds the code on a wrapped cause', () => {
    const wrapped = new Error('fetch failed', { cause: sys('ECONNREFUSED') });
    expect(errorFromTransport(KEY_CALL, wrapped, ctx).code).toBe('ERR_KMS_UNREACHABLE');
  });

  it('prefers the caller abort, then the deadline, over the socket error', () => {
    const both = { aborted: true, timedOut: true, timeoutMs: 500 };
    expect(errorFromTransport(KEY_CALL, sys('ECONNRESET'), both).code).toBe('ERR_KMS_ABORTED');
    const timedOut = errorFromTransport(KEY_CALL, sys('ECONNRESET'), { ...ctx, timedOut: true });
    expect(timedOut.code).toBe('ERR_KMS_TIMEOUT');
    expect(timedOut.message).toContain('500 ms');
  });
});
