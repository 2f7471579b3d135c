import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { FastpathError } from '@fastpath/core';
import type { KmsAudit } from '../audit/kms-audit.js';
import {
  PSEUDO_AUTH,
  type AuthRequest,
  type LoginOutcome,
  type AuthSuccess,
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
import { SpnegoRefusal } from '../kerberos/spnego-acceptor.js';
import { jettyErrorPage } from './jetty-error-page.js';
import type { KmsLogger } from '../kms-logger.js';
import type { KmsInput } from '../operations/kms-input.js';
import type { KmsOperations } from '../operations/kms-operations.js';
import type { TokenOperations } from '../operations/token-operations.js';
import { registerKeyRoutes, routableUrl } from './key-routes.js';
import { kmsParams, pathOf, type KmsRouteConfig } from './kms-request.js';
import type { KmsMetrics } from './kms-metrics.js';
import { TOKEN_OPERATION_CONSTRAINT, isTokenOperation, registerTokenRoutes } from './token-routes.js';

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
  /** The key operations. */
  operations: KmsOperations;
  /** The delegation-token operations. */
  tokens: TokenOperations;
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

/** Methods some KMS path serves, for the `Allow` header of an `OPTIONS` answer. */
const KMS_ALLOWED_METHODS = 'GET, POST, PUT, DELETE, OPTIONS';
/** The methods the catch-all of `/kms/v1/*` answers 404 to (OPTIONS logs in on every path). */
const CATCH_ALL_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH'] as const;

/**
 * Builds the Fastify application, one request pipeline for every request: the router picks the
 * route (a key operation by path and method, a delegation-token operation by its `op=` on any
 * path under `/kms`, an operational endpoint), the request hook authenticates the caller as that
 * route declares (cookie, delegation token, `user.name`, `doas`), and the handler runs the
 * operation. Every error, including malformed requests, oversized bodies and headers and unknown
 * paths, is answered through the error catalogue with Hadoop's `RemoteException` body, or, for
 * the failures of token operations, as Hadoop's authentication filter answers them.
 */
export function buildKmsApp(options: KmsAppOptions): FastifyInstance {
  const { authenticator, audit, metrics } = options;
  const app = Fastify({
    logger: options.logLevel === 'silent' ? false : { level: options.logLevel },
    bodyLimit: options.http.maxBodyBytes,
    requestTimeout: options.http.requestTimeoutMs,
    keepAliveTimeout: options.http.keepAliveTimeoutMs,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: {
      maxParamLength: 1 << 20,
      ignoreDuplicateSlashes: false,
    },
    rewriteUrl: (req) => routableUrl(req.url ?? '/'),
    ...(options.tls
      ? {
          https: { cert: options.tls.cert, key: options.tls.key, maxHeaderSize: options.http.maxHeaderBytes },
        }
      : { http: { maxHeaderSize: options.http.maxHeaderBytes } }),
    clientErrorHandler: (error, socket) => answerClientError(error, socket),
    frameworkErrors: (error, request, reply) => {
      // A path the router cannot decode (bad percent-encoding). Fastify's message names the URL
      // it routed; the caller's own URL is the one to name.
      const message =
        error.code === 'FST_ERR_BAD_URL'
          ? `'${request.originalUrl}' is not a valid url component`
          : error.message;
      void sendError(
        request,
        reply,
        new KmsRequestError('ERR_KMS_BAD_REQUEST', `Malformed request URL: ${message}`),
      );
    },
  });

  app.addConstraintStrategy(TOKEN_OPERATION_CONSTRAINT);
  app.decorateRequest('kmsUser', undefined);
  app.decorateRequest('kmsOp', undefined);

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
    params: kmsParams(request),
    headers: request.headers,
    remoteAddress: normaliseAddress(request.socket.remoteAddress),
    secure: options.tls !== undefined,
  });

  const requestUrl = (request: FastifyRequest): string =>
    `${options.tls ? 'https' : 'http'}://${request.headers.host ?? 'localhost'}${request.originalUrl}`;

  async function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<void> {
    const answer = toAnswer(error, request.id);
    if (answer.status >= 500) request.log.error({ err: error }, 'KMS request failed');
    // 503s are expected states (shutting down, ZooKeeper away) with their own messages.
    if (answer.status >= 500 && answer.status !== 503) {
      // The server's own log gets the fault whatever the request log level: the request id ties
      // it to the answer's message. The path names keys, never secrets; the query is left out
      // because it may carry a token.
      options.logger.error(
        `request ${request.id} ${request.method} ${pathOf(request.originalUrl)} answered ${answer.status}`,
        error,
      );
    }
    const code = error instanceof FastpathError ? error.code : undefined;
    const tokenOperation = isTokenOperation(request.kmsOp);
    if (tokenOperation && code === 'ERR_KMS_AUTHENTICATION_REQUIRED' && !authenticator.kerberos) {
      // Getting or renewing a token without real authentication: Hadoop's pseudo handler
      // answers 403 with its challenge and no body, and its filter leaves that as it is.
      await reply.code(403).header('www-authenticate', PSEUDO_AUTH).send();
      return;
    }
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
      if (answer.status === 401) reply.header('www-authenticate', authenticator.challenge);
      if (authenticator.kerberos) {
        // Hadoop's client re-runs SPNEGO on a 401, and on a 403 whose reason phrase says the
        // cookie's signature was bad; its filter writes the failure's message there.
        reply.raw.statusMessage = reasonPhrase(answer.body.RemoteException.message);
        if (tokenOperation) {
          await reply.code(answer.status).send();
          return;
        }
        if (error instanceof FastpathError && error.cause instanceof SpnegoRefusal) {
          // Hadoop's filter refuses a SPNEGO token with sendError: Jetty's error page, in the
          // form the client accepts (HTML for Hadoop's Java client), not a RemoteException.
          const page = jettyErrorPage(
            request.headers.accept,
            answer.status,
            answer.body.RemoteException.message,
            pathOf(request.url),
          );
          reply
            .code(answer.status)
            .header('cache-control', page?.cacheControl ?? 'must-revalidate,no-cache,no-store');
          if (page === undefined) await reply.send();
          else await reply.type(page.contentType).send(page.body);
          return;
        }
      }
    } else if (answer.status >= 500 && request.kmsUser !== undefined && request.kmsOp !== undefined) {
      // Refusals of a request (4xx) leave the audit log as it was, except for the two lines
      // that record a refused identity: UNAUTHORIZED (written by the ACL check) and
      // UNAUTHENTICATED (above). An ERROR line records a failure of the server.
      audit.error(
        request.kmsUser.auditName ?? request.kmsUser.shortName,
        request.method,
        answer.body.RemoteException.message,
      );
    }
    if (answer.retriable && answer.status === 503) reply.header('retry-after', '1');
    if (tokenOperation && code !== undefined && FILTER_ANSWERED_CODES.has(code)) {
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
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith(KMS_REST_PREFIX)) request.kmsOp = 'NOT_FOUND';
    return sendError(
      request,
      reply,
      new KmsRequestError(
        'ERR_KMS_NOT_FOUND',
        `HTTP 404 Not Found: ${request.method} ${pathOf(request.originalUrl)}`,
      ),
    );
  });

  /**
   * Authenticates the caller as its route declares, after the input checks of the query (so a
   * refused name reaches no store), and records who it is: nothing else.
   */
  function authenticateRequest(request: FastifyRequest, reply: FastifyReply): void | Promise<void> {
    const path = pathOf(request.url);
    // /health itself reports the shutdown (503 "closing"), for load balancers.
    if (options.closing() && path !== '/health') {
      throw new KmsRequestError('ERR_KMS_SHUTTING_DOWN', 'The KMS is shutting down');
    }
    if (path !== '/kms' && !path.startsWith('/kms/')) return;
    const config = request.routeOptions.config;
    const mode: KmsRouteConfig['kmsAuth'] = config.kmsAuth ?? 'request';
    const op = config.kmsOp === undefined ? undefined : opOf(config.kmsOp, request);
    const auth = authRequest(request);
    options.input.queryParameters(auth.params);
    if (mode !== 'request') {
      request.kmsOp = op;
      if (mode === 'none') return;
      const loggedIn = (outcome: LoginOutcome): void => {
        request.kmsUser = outcome.user;
        if (outcome.wwwAuthenticate !== undefined) reply.header('www-authenticate', outcome.wwwAuthenticate);
      };
      const login = authenticator.authenticateLogin(auth, mode === 'cancel');
      if (login instanceof Promise) return login.then(loggedIn);
      loggedIn(login);
      return;
    }
    request.kmsOp = 'KMS';
    const authenticated = (outcome: AuthSuccess): void => {
      request.kmsUser = outcome.user;
      if (outcome.setCookie !== undefined) reply.header('set-cookie', outcome.setCookie);
      if (outcome.wwwAuthenticate !== undefined) reply.header('www-authenticate', outcome.wwwAuthenticate);
      if (op !== undefined) request.kmsOp = op;
    };
    const outcome = authenticator.authenticate(auth);
    if (outcome instanceof Promise) return outcome.then(authenticated);
    authenticated(outcome);
  }

  // The three hooks are callback-style, not async: an async hook costs a promise and a microtask
  // hop per request even when it has nothing to wait for. Only a delegation token waits (on the
  // token store), and only then does the request hook wait on a promise.
  app.addHook('onRequest', (request, reply, done) => {
    let pending: void | Promise<void>;
    try {
      pending = authenticateRequest(request, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (pending === undefined) done();
    else pending.then(() => done(), done);
  });

  // While shutting down, every answer closes its connection, so a keep-alive client does not
  // hold the shutdown open after its last request.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (options.closing()) reply.header('connection', 'close');
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    metrics.observe(request.kmsOp ?? 'OTHER', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  registerKeyRoutes(app, options.operations, (request, name) => {
    const base = requestUrl(request);
    const at = base.lastIndexOf('/keys');
    return `${base.slice(0, at)}/key/${encodeURIComponent(name)}`;
  });
  // The routes Hadoop's authentication filter answers before any resource, so they never read
  // a body: the token operations and the OPTIONS log-in. Their scope's one parser leaves it unread.
  void app.register((scope, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    registerTokenRoutes(scope, options.tokens);
    for (const url of ['/kms', '/kms/*']) {
      // Hadoop's clients log in with `OPTIONS <call URL>?user.name=…` before the call (its
      // Kerberos authenticator falling back to the pseudo one) and need 200 with the hadoop.auth
      // cookie; Hadoop's KMS answers OPTIONS on every path under /kms once authenticated. The
      // answer touches no key and writes no audit line.
      scope.options(url, { config: { kmsAuth: 'request', kmsOp: 'KMS' } }, (_request, reply) =>
        reply.code(200).header('allow', KMS_ALLOWED_METHODS).send(),
      );
    }
    done();
  });
  // Paths under /kms/v1/ that no operation serves: 404 once authenticated. A wildcard route
  // (not the not-found handler) so that bad percent-encoding anywhere in them is a 400.
  app.route({
    method: [...CATCH_ALL_METHODS],
    url: `${KMS_REST_PREFIX}*`,
    config: { kmsAuth: 'request', kmsOp: 'NOT_FOUND' },
    exposeHeadRoute: false,
    handler: (request) => {
      throw new KmsRequestError(
        'ERR_KMS_NOT_FOUND',
        `HTTP 404 Not Found: ${request.method} ${pathOf(request.originalUrl)}`,
      );
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

function opOf(op: KmsRouteConfig['kmsOp'], request: FastifyRequest): string {
  return typeof op === 'string' ? op : op(kmsParams(request));
}

/** The codes a delegation-token operation fails with that Hadoop answers from its filter. */
const FILTER_ANSWERED_CODES: ReadonlySet<string> = new Set([
  'ERR_KMS_BAD_REQUEST',
  'ERR_KMS_AUTHENTICATION_FAILED',
  'ERR_KMS_TOKEN_CANCEL_FAILED',
]);

/**
 * A message as an HTTP reason phrase: its first line, with what a status line cannot carry
 * (controls, characters outside Latin-1) replaced by `?`, as Jetty writes it.
 */
function reasonPhrase(message: string): string {
  const newline = message.indexOf('\n');
  const line = newline === -1 ? message : message.slice(0, newline);
  return line.replace(/[^\t\x20-\x7e\xa0-\xff]/g, '?');
}

/**
 * Maps Fastify's own errors (body too large, bad content length, a failed schema validation, …)
 * into the code table. A 500 names the request id, so an operator finds the log line of the fault.
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
    // Fastify's 4xx, schema validation (FST_ERR_VALIDATION, 400) among them: Hadoop's
    // IllegalArgumentException body with Fastify's status.
    const mapping: KmsErrorMapping = { ...KMS_ERROR_CATALOGUE.ERR_KMS_BAD_REQUEST.http, status };
    return {
      status,
      body: remoteException(
        mapping,
        typeof fastifyError.message === 'string' ? fastifyError.message : 'Bad request',
      ),
      retriable: false,
    };
  }
  return errorAnswer(error);
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
