// What every route and hook of the KMS application knows of a request: its caller, its
// operation, its query parameters (parsed once), and how its route wants it authenticated.
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { KmsUser } from '../acl/kms-user.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request acts as, once authenticated. */
    kmsUser: KmsUser | undefined;
    /** The operation, for metrics and audit (a Hadoop `KMSOp` name, a DT operation, or a route name). */
    kmsOp: string | undefined;
  }
  interface FastifyContextConfig {
    kmsAuth?: KmsRouteConfig['kmsAuth'];
    kmsOp?: KmsRouteConfig['kmsOp'];
  }
}

/** What a KMS route declares in its `config`. */
export interface KmsRouteConfig {
  /**
   * How the request hook authenticates it before the handler: `request` (cookie, delegation
   * token or `user.name`, as every key operation), `login` (real authentication only: getting or
   * renewing a token), `cancel` (a cookie if there is one: cancelling needs none), `none`.
   */
  readonly kmsAuth: 'request' | 'login' | 'cancel' | 'none';
  /**
   * The operation. A key route's is set once its caller is authenticated (a refused caller is
   * counted as `KMS`); a token route's before. A function reads it from the query.
   */
  readonly kmsOp: string | ((params: URLSearchParams) => string);
}

const PARAMS = Symbol('kmsParams');
type WithParams = IncomingMessage & { [PARAMS]?: URLSearchParams };

/**
 * The query parameters of a raw request, parsed once (form decoding, as Hadoop's filter does).
 * The router reads them first, for the token-operation constraint.
 */
export function rawParams(raw: IncomingMessage): URLSearchParams {
  const req = raw as WithParams;
  let params = req[PARAMS];
  if (params === undefined) {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    params = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
    req[PARAMS] = params;
  }
  return params;
}

/** The query parameters of a request. */
export function kmsParams(request: FastifyRequest): URLSearchParams {
  return rawParams(request.raw);
}

/** The path of a URL, without its query. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
