import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { FastpathError } from '@fastpath/core';
import type { KmsUser } from '../acl/kms-user.js';
import type { KmsAudit } from '../audit/kms-audit.js';
import {
  DELEGATION_TOKEN_OPERATIONS,
  PSEUDO_AUTH,
  type AuthRequest,
  type KmsAuthenticator,
} from '../auth/kms-authenticator.js';
import { normaliseAddress } from '../auth/proxy-users.js';
import {
  KMS_ERROR_CATALOGUE,
  errorAnswer,
  remoteException,
  type ErrorAnswer,
  type KmsErrorMapping,
} from '../kms-error-table.js';
import { KmsRequestError } from '../../kms-errors.js';
import type { KmsLogger } from '../kms-logger.js';
import type { KmsInput } from '../operations/kms-input.js';
import type { KmsMetrics } from './kms-metrics.js';
import type { KmsOperations, OperationResult } from '../operations/kms-operations.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request acts as, once authenticated. */
    kmsUser: KmsUser | undefined;
    /** The operation, for metrics and audit (a Hadoop `KMSOp` name, a DT operation, or a route name). */
    kmsOp: string | undefined;
    /** The query parameters, parsed once (form decoding, as Hadoop's filter does). */
    kmsParams: URLSearchParams | undefined;
  }
}

/** REST prefix of the KMS API. */
export const KMS_REST_PREFIX = '/kms/v1/';
const JSON_TYPE = 'application/json; charset=utf-8';

/** The operational endpoints, answered without authentication. */
export interface KmsOpsEndpoints {
  health(): { status: number; body: unknown };
  buildInfo(): unknown;
  metrics(): Promise<{ contentType: string; body: string }>;
}

/** What {@link buildKmsApp} assembles. */
export interface KmsAppOptions {
  operations: KmsOperations;
  /** The checks of query parameters, run before authentication. */
  input: KmsInput;
  authenticator: KmsAuthenticator;
  audit: KmsAudit;
  metrics: KmsMetrics;
  /** The operational endpoints outside the REST API (`/health`, `/build-info`, `/metrics`). */
  endpoints: KmsOpsEndpoints;
  http: {
    maxBodyBytes: number;
    maxHeaderBytes: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
  };
  tls: { cert: Buffer; key: Buffer } | undefined;
  /** pino log level for the server log; `silent` for none. */
  logLevel: string;
  /** The server's own log: every answer with a 5xx status is written there at error level. */
  logger: KmsLogger;
  /** Whether the server is shutting down (new requests get 503). */
  closing: () => boolean;
}

const KEY_SUFFIXES = new Set([
  '_metadata',
  '_currentversion',
  '_versions',
  '_eek',
  '_invalidatecache',
  '_reencryptbatch',
]);

/**
 * Builds the Fastify application: the authentication filter (cookie, delegation token,
 * `user.name`, `doas`, DT operations), the REST API v1 under `/kms/v1`, the operational endpoints
 * (`/metrics`, `/health`, `/build-info`), and Hadoop `RemoteException` bodies for every error,
 * including malformed requests, oversized bodies and headers, and unknown paths.
 */
/** Methods some KMS path serves, for the `Allow` header of an `OPTIONS` answer. */
const KMS_ALLOWED_METHODS = 'GET, POST, PUT, DELETE, OPTIONS';

export function buildKmsApp(options: KmsAppOptions): FastifyInstance {
  const { operations, authenticator, audit, metrics } = options;
  const app = Fastify({
    logger: options.logLevel === 'silent' ? false : { level: options.logLevel },
    bodyLimit: options.http.maxBodyBytes,
    requestTimeout: options.http.requestTimeoutMs,
    keepAliveTimeout: options.http.keepAliveTimeoutMs,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 1 << 20, ignoreDuplicateSlashes: false },
    ...(options.tls
      ? {
          https: { cert: options.tls.cert, key: options.tls.key, maxHeaderSize: options.http.maxHeaderBytes },
        }
      : { http: { maxHeaderSize: options.http.maxHeaderBytes } }),
    clientErrorHandler: (error, socket) => answerClientError(error, socket),
    frameworkErrors: (error, request, reply) => {
      void sendError(
        request,
        reply,
        new KmsRequestError('ERR_KMS_BAD_REQUEST', `Malformed request URL: ${error.message}`),
      );
    },
  });

  app.decorateRequest('kmsUser', undefined);
  app.decorateRequest('kmsOp', undefined);
  app.decorateRequest('kmsParams', undefined);

  // One parser for every content type: Hadoop clients send JSON, sometimes without a type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body: Buffer, done) => {
    if (body.length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(body.toString('utf8')));
    } catch (error) {
      done(
        new KmsRequestError(
          'ERR_KMS_BAD_REQUEST',
          `Malformed JSON in the request body: ${(error as Error).message}`,
        ),
        undefined,
      );
    }
  });

  const authRequest = (request: FastifyRequest): AuthRequest => ({
    method: request.method,
    params: params(request),
    headers: request.headers,
    remoteAddress: normaliseAddress(request.socket.remoteAddress),
    secure: options.tls !== undefined,
  });

  const requestUrl = (request: FastifyRequest): string =>
    `${options.tls ? 'https' : 'http'}://${request.headers.host ?? 'localhost'}${request.url}`;

  async function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<void> {
    const answer = toAnswer(error, request.id);
    if (answer.status >= 500) request.log.error({ err: error }, 'KMS request failed');
    // 503s are expected states (shutting down, ZooKeeper away) with their own messages.
    if (answer.status >= 500 && answer.status !== 503) {
      // The server's own log gets the fault whatever the request log level: the request id ties
      // it to the answer's message. The path names keys, never secrets; the query is left out
      // because it may carry a token.
      options.logger.error(
        `request ${request.id} ${request.method} ${pathOf(request.url)} answered ${answer.status}`,
        error,
      );
    }
    const code = error instanceof FastpathError ? error.code : undefined;
    const authFailure =
      code === 'ERR_KMS_AUTHENTICATION_REQUIRED' || code === 'ERR_KMS_AUTHENTICATION_FAILED';
    if (authFailure) {
      // Hadoop's filter audits UNAUTHENTICATED for 401s only; a refused token (403) is not audited.
      if (answer.status === 401) {
        audit.unauthenticated(
          normaliseAddress(request.socket.remoteAddress),
          request.method,
          requestUrl(request),
          answer.body.RemoteException.message,
        );
      }
      reply.header('set-cookie', authenticator.clearCookie(options.tls !== undefined));
      if (answer.status === 401) reply.header('www-authenticate', PSEUDO_AUTH);
    } else if (answer.status >= 500 && request.kmsUser !== undefined && request.kmsOp !== undefined) {
      // Refusals of a request (4xx) leave the audit log as it was, except for the two lines
      // that record a refused identity: UNAUTHORIZED (written by the ACL check) and
      // UNAUTHENTICATED (above). An ERROR line records a failure of the server.
      audit.error(request.kmsUser.shortName, request.method, answer.body.RemoteException.message);
    }
    if (answer.retriable && answer.status === 503) reply.header('retry-after', '1');
    if (code !== undefined && answeredByFilter(request.kmsOp, code)) {
      // Hadoop's authentication filter answers the failures of its delegation-token handler
      // with the reason as the status line and no body; Hadoop's client reads the reason from
      // there, and a RemoteException body naming AuthenticationException (not an IOException)
      // makes it fail with an UndeclaredThrowableException instead.
      reply.raw.statusMessage = reasonPhrase(answer.body.RemoteException.message);
      await reply.code(answer.status).send();
      return;
    }
    await reply.code(answer.status).type(JSON_TYPE).send(JSON.stringify(answer.body));
  }

  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new KmsRequestError(
        'ERR_KMS_NOT_FOUND',
        `HTTP 404 Not Found: ${request.method} ${pathOf(request.url)}`,
      ),
    ),
  );

  app.addHook('onRequest', async (request, reply) => {
    const path = pathOf(request.url);
    // /health itself reports the shutdown (503 "closing"), for load balancers.
    if (options.closing() && path !== '/health') {
      throw new KmsRequestError('ERR_KMS_SHUTTING_DOWN', 'The KMS is shutting down');
    }
    if (path !== '/kms' && !path.startsWith('/kms/')) return;
    const auth = authRequest(request);
    options.input.queryParameters(auth.params);
    const dtOp = authenticator.delegationTokenOperation(auth);
    if (dtOp !== undefined) {
      request.kmsOp = dtOp;
      const answer = await authenticator.delegationTokenReply(dtOp, auth);
      request.kmsUser = answer.user;
      reply.code(answer.status).headers(answer.headers);
      return reply.send(answer.body === '' ? undefined : answer.body);
    }
    request.kmsOp = 'KMS';
    const outcome = await authenticator.authenticate(auth);
    request.kmsUser = outcome.user;
    if (outcome.setCookie !== undefined) reply.header('set-cookie', outcome.setCookie);
    if (request.method === 'OPTIONS') {
      // Hadoop's clients log in with `OPTIONS <call URL>?user.name=…` before the call (its
      // Kerberos authenticator falling back to the pseudo one) and need 200 with the hadoop.auth
      // cookie; Hadoop's KMS answers OPTIONS on every path under /kms once authenticated. The
      // answer touches no key and writes no audit line.
      return reply.code(200).header('allow', KMS_ALLOWED_METHODS).send();
    }
    return undefined;
  });

  // While shutting down, every answer closes its connection, so a keep-alive client does not
  // hold the shutdown open after its last request.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (options.closing()) reply.header('connection', 'close');
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    metrics.observe(request.kmsOp ?? 'OTHER', reply.statusCode, reply.elapsedTime / 1000);
  });

  app.route({
    method: ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH'],
    url: `${KMS_REST_PREFIX}*`,
    handler: async (request, reply) => {
      const result = await dispatch(request, operations, requestUrl);
      if (result.headers) reply.headers(result.headers);
      reply.code(result.status);
      if (result.body === undefined) return reply.send();
      return reply.type(JSON_TYPE).send(JSON.stringify(result.body));
    },
  });

  app.get('/health', async (request, reply) => {
    request.kmsOp = 'HEALTH';
    const health = options.endpoints.health();
    return reply.code(health.status).type(JSON_TYPE).send(JSON.stringify(health.body));
  });
  app.get('/build-info', async (request, reply) => {
    request.kmsOp = 'BUILD_INFO';
    return reply.type(JSON_TYPE).send(JSON.stringify(options.endpoints.buildInfo()));
  });
  app.get('/metrics', async (request, reply) => {
    request.kmsOp = 'METRICS';
    const text = await options.endpoints.metrics();
    return reply.type(text.contentType).send(text.body);
  });

  return app;
}

/** The codes a delegation-token operation fails with that Hadoop answers from its filter. */
const FILTER_ANSWERED_CODES: ReadonlySet<string> = new Set([
  'ERR_KMS_BAD_REQUEST',
  'ERR_KMS_AUTHENTICATION_FAILED',
  'ERR_KMS_TOKEN_CANCEL_FAILED',
]);

function answeredByFilter(op: string | undefined, code: string): boolean {
  return op !== undefined && op in DELEGATION_TOKEN_OPERATIONS && FILTER_ANSWERED_CODES.has(code);
}

/**
 * A message as an HTTP reason phrase: its first line, with what a status line cannot carry
 * (controls, characters outside Latin-1) replaced by `?`, as Jetty writes it.
 */
function reasonPhrase(message: string): string {
  const newline = message.indexOf('\n');
  const line = newline === -1 ? message : message.slice(0, newline);
  return line.replace(/[^\t\x20-\x7e\xa0-\xff]/g, '?');
}

function params(request: FastifyRequest): URLSearchParams {
  if (request.kmsParams === undefined) {
    const url = request.url;
    const q = url.indexOf('?');
    request.kmsParams = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  }
  return request.kmsParams;
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * Maps Fastify's own errors (body too large, bad content length, …) into the code table. A 500
 * names the request id, so an operator finds the log line of the fault.
 */
function toAnswer(error: unknown, requestId: string): ErrorAnswer {
  const answer = mapError(error);
  if (answer.status !== 500) return answer;
  const remote = answer.body.RemoteException;
  return {
    ...answer,
    body: { RemoteException: { ...remote, message: `${remote.message} (request ${requestId})` } },
  };
}

function mapError(error: unknown): ErrorAnswer {
  if (error instanceof FastpathError) return errorAnswer(error);
  const fastifyError = error as { code?: unknown; statusCode?: unknown; message?: unknown };
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return errorAnswer(new KmsRequestError('ERR_KMS_PAYLOAD_TOO_LARGE', 'Request body is too large'));
  }
  const status = typeof fastifyError.statusCode === 'number' ? fastifyError.statusCode : 500;
  if (status >= 400 && status < 500) {
    const mapping: KmsErrorMapping = { ...KMS_ERROR_CATALOGUE.ERR_KMS_BAD_REQUEST.http, status };
    return {
      status,
      body: remoteException(mapping, String(fastifyError.message ?? 'Bad request')),
      retriable: false,
    };
  }
  return errorAnswer(error);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new KmsRequestError('ERR_KMS_BAD_REQUEST', 'Malformed URL path: invalid percent-encoding');
  }
}

async function dispatch(
  request: FastifyRequest,
  operations: KmsOperations,
  requestUrl: (request: FastifyRequest) => string,
): Promise<OperationResult> {
  const user = request.kmsUser as KmsUser;
  const q = params(request);
  const path = pathOf(request.url);
  const segments = path.slice(KMS_REST_PREFIX.length).split('/').map(decodeSegment);
  const method = request.method;
  const body: unknown = request.body;
  const [head, ...tail] = segments;

  const route = (
    op: string,
    handlers: Partial<Record<string, () => OperationResult | Promise<OperationResult>>>,
  ) => {
    request.kmsOp = op;
    const handler = handlers[method];
    if (handler === undefined) {
      throw new KmsRequestError(
        'ERR_KMS_METHOD_NOT_ALLOWED',
        `HTTP method ${method} is not allowed on ${path}`,
      );
    }
    return handler();
  };

  if (head === 'keys' && tail.length === 0) {
    const keyUrl = (name: string): string => {
      const base = requestUrl(request);
      const at = base.lastIndexOf('/keys');
      return `${base.slice(0, at)}/key/${encodeURIComponent(name)}`;
    };
    return route('CREATE_KEY', { POST: () => operations.createKey(user, body, keyUrl) });
  }
  if (head === 'keys' && tail.length === 1 && tail[0] === 'names') {
    return route('GET_KEYS', { GET: () => operations.getKeyNames(user) });
  }
  if (head === 'keys' && tail.length === 1 && tail[0] === 'metadata') {
    return route('GET_KEYS_METADATA', { GET: () => operations.getKeysMetadata(user, q.getAll('key')) });
  }
  if (head === 'key' && tail.length > 0) {
    const last = tail[tail.length - 1] as string;
    const suffix = tail.length > 1 && KEY_SUFFIXES.has(last) ? last : undefined;
    const name = (suffix === undefined ? tail : tail.slice(0, -1)).join('/');
    switch (suffix) {
      case undefined:
        if (method === 'GET') return route('GET_METADATA', { GET: () => operations.getMetadata(user, name) });
        if (method === 'DELETE')
          return route('DELETE_KEY', { DELETE: () => operations.deleteKey(user, name) });
        return route('ROLL_NEW_VERSION', { POST: () => operations.rolloverKey(user, name, body) });
      case '_metadata':
        return route('GET_METADATA', { GET: () => operations.getMetadata(user, name) });
      case '_currentversion':
        return route('GET_CURRENT_KEY', { GET: () => operations.getCurrentVersion(user, name) });
      case '_versions':
        return route('GET_KEY_VERSIONS', { GET: () => operations.getKeyVersions(user, name) });
      case '_eek':
        return route('GENERATE_EEK', {
          GET: () => operations.generateEeks(user, name, q.get('eek_op'), q.get('num_keys')),
        });
      case '_invalidatecache':
        return route('INVALIDATE_CACHE', { POST: () => operations.invalidateCache(user, name) });
      case '_reencryptbatch':
        return route('REENCRYPT_EEK_BATCH', { POST: () => operations.reencryptBatch(user, name, body) });
    }
  }
  if (head === 'keyversion' && tail.length > 0) {
    const last = tail[tail.length - 1] as string;
    if (tail.length > 1 && last === '_eek') {
      const versionName = tail.slice(0, -1).join('/');
      const op = q.get('eek_op') === 'reencrypt' ? 'REENCRYPT_EEK' : 'DECRYPT_EEK';
      return route(op, { POST: () => operations.handleEek(user, versionName, q.get('eek_op'), body) });
    }
    return route('GET_KEY_VERSION', { GET: () => operations.getKeyVersion(user, tail.join('/')) });
  }
  request.kmsOp = 'NOT_FOUND';
  throw new KmsRequestError('ERR_KMS_NOT_FOUND', `HTTP 404 Not Found: ${method} ${path}`);
}

/** Answers a connection-level error (headers too large, timeout, garbage) with a Hadoop body. */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  let answer: ErrorAnswer;
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    answer = errorAnswer(
      new KmsRequestError('ERR_KMS_HEADERS_TOO_LARGE', 'Request header fields (or the URL) are too large'),
    );
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    answer = errorAnswer(new KmsRequestError('ERR_KMS_REQUEST_TIMEOUT', 'Request timeout'));
  } else {
    answer = errorAnswer(new KmsRequestError('ERR_KMS_BAD_REQUEST', 'Malformed HTTP request'));
  }
  const body = JSON.stringify(answer.body);
  socket.end(
    `HTTP/1.1 ${answer.status} ${statusText(answer.status)}\r\nContent-Type: ${JSON_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function statusText(status: number): string {
  return (
    { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[status] ?? 'Error'
  );
}
