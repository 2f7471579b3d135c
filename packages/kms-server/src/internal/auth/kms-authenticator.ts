import { KmsRequestError } from '../../kms-errors.js';
import type { GroupResolver } from '../acl/group-resolver.js';
import { shortUserName, type KmsUser } from '../acl/kms-user.js';
import type { AuthCookie } from './auth-cookie.js';
import type { ProxyUsers } from './proxy-users.js';
import { isTokenUrlString } from '../operations/kms-input.js';
import { isTokenRefusal, javaExceptionText, type TokenService } from './token-service.js';

/** Header carrying a delegation token (checked before the `delegation` parameter). */
export const DELEGATION_TOKEN_HEADER = 'x-hadoop-delegation-token';
/** The `WWW-Authenticate` value of Hadoop's pseudo (simple) authentication. */
export const PSEUDO_AUTH = 'PseudoAuth';
/** The user of anonymous requests, when `simple.anonymous.allowed` is true (Hadoop's static web user). */
export const ANONYMOUS_USER = 'dr.who';

/** The delegation-token operations (`op=` values), with the HTTP method each requires. */
export const DELEGATION_TOKEN_OPERATIONS = Object.freeze({
  GETDELEGATIONTOKEN: 'GET',
  RENEWDELEGATIONTOKEN: 'PUT',
  CANCELDELEGATIONTOKEN: 'PUT',
} as const);
export type DelegationTokenOperation = keyof typeof DELEGATION_TOKEN_OPERATIONS;

/** What the authenticator needs to know of a request. */
export interface AuthRequest {
  readonly method: string;
  readonly params: URLSearchParams;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly remoteAddress: string;
  readonly secure: boolean;
}

/** A reply the authenticator makes itself (DT operations, and refusals with a special shape). */
export interface AuthReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON text, or empty. */
  readonly body: string;
  /** For the audit log and metrics. */
  readonly user: KmsUser | undefined;
}

/** The outcome for an ordinary request: who it is, and a cookie to set when one was issued. */
export interface AuthSuccess {
  readonly user: KmsUser;
  readonly via: 'cookie' | 'token' | 'simple' | 'anonymous';
  readonly setCookie: string | undefined;
}

/** Options of {@link KmsAuthenticator}. */
export interface KmsAuthenticatorOptions {
  cookie: AuthCookie;
  tokens: TokenService;
  proxyUsers: ProxyUsers;
  groups: GroupResolver;
  anonymousAllowed: boolean;
}

function header(headers: AuthRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The `doas` parameter, matched case-insensitively as Hadoop does. */
function doAsParam(params: URLSearchParams): string | undefined {
  for (const [name, value] of params) if (name.toLowerCase() === 'doas') return value;
  return undefined;
}

const jsonLine = (value: unknown): string => `${JSON.stringify(value)}\n`;

/** Hadoop's text for a token that does not decode, sent before the token store is asked. */
const NOT_A_TOKEN =
  'org.apache.hadoop.security.token.SecretManager$InvalidToken: the token is not a URL-safe base64 string';

/**
 * Hadoop's KMS authentication filter for simple authentication: the signed `hadoop.auth` cookie
 * first, then a delegation token (`X-Hadoop-Delegation-Token` header, else `delegation`
 * parameter), then `user.name`; `doas` impersonation under the proxy-user rules; and the
 * delegation-token operations `op=GETDELEGATIONTOKEN|RENEWDELEGATIONTOKEN|CANCELDELEGATIONTOKEN`
 * with Hadoop's methods, parameters, answers and status codes.
 */
export class KmsAuthenticator {
  readonly #options: KmsAuthenticatorOptions;

  constructor(options: KmsAuthenticatorOptions) {
    this.#options = options;
  }

  /** A user of this server, with lazily resolved groups. */
  user(name: string, realUser?: KmsUser): KmsUser {
    const shortName = shortUserName(name);
    const groups = this.#options.groups;
    let cached: readonly string[] | undefined;
    return {
      name,
      shortName,
      realUser,
      groups: () => (cached ??= groups.groupsOf(shortName)),
    };
  }

  /** The DT operation a request asks for, if any (`op` is matched case-insensitively). */
  delegationTokenOperation(request: AuthRequest): DelegationTokenOperation | undefined {
    if (request.method === 'OPTIONS') return undefined;
    const op = request.params.get('op')?.toUpperCase();
    return op !== undefined && op in DELEGATION_TOKEN_OPERATIONS
      ? (op as DelegationTokenOperation)
      : undefined;
  }

  /**
   * Authenticates an ordinary request. Throws a 401 (`ERR_KMS_AUTHENTICATION_REQUIRED`, with
   * `WWW-Authenticate: PseudoAuth`) when nothing authenticates it, a 403
   * (`ERR_KMS_AUTHENTICATION_FAILED`) for a bad delegation token, and a 403
   * (`ERR_KMS_ACCESS_DENIED`) for a refused `doas`.
   */
  async authenticate(request: AuthRequest): Promise<AuthSuccess> {
    const cookie = this.#options.cookie.verify(header(request.headers, 'cookie'));
    if (cookie !== undefined && 'user' in cookie) {
      return { user: this.#withDoAs(this.user(cookie.user), request), via: 'cookie', setCookie: undefined };
    }
    const token =
      header(request.headers, DELEGATION_TOKEN_HEADER) ?? request.params.get('delegation') ?? undefined;
    if (token !== undefined) {
      if (!isTokenUrlString(token)) throw new KmsRequestError('ERR_KMS_AUTHENTICATION_FAILED', NOT_A_TOKEN);
      let identity;
      try {
        identity = await this.#options.tokens.verify(token);
      } catch (error) {
        if (!isTokenRefusal(error)) throw error;
        throw new KmsRequestError('ERR_KMS_AUTHENTICATION_FAILED', javaExceptionText(error), {
          cause: error,
        });
      }
      // As Hadoop: the token's own identity (owner, via its real user); doas is ignored.
      const real =
        identity.realUser !== '' && identity.realUser !== identity.owner
          ? this.user(identity.realUser)
          : undefined;
      return { user: this.user(identity.owner, real), via: 'token', setCookie: undefined };
    }
    const name = request.params.get('user.name');
    if (name === null || name === '') {
      if (this.#options.anonymousAllowed) {
        return { user: this.user(ANONYMOUS_USER), via: 'anonymous', setCookie: undefined };
      }
      throw new KmsRequestError(
        'ERR_KMS_AUTHENTICATION_REQUIRED',
        cookie !== undefined && 'error' in cookie ? cookie.error : 'Authentication required',
      );
    }
    const user = this.#withDoAs(this.user(name), request);
    const signed = this.#options.cookie.sign(name);
    return {
      user,
      via: 'simple',
      setCookie:
        signed === undefined
          ? undefined
          : this.#options.cookie.setCookieHeader(signed, { secure: request.secure }),
    };
  }

  /** The header that clears the cookie, sent with authentication failures (as Hadoop does). */
  clearCookie(secure: boolean): string {
    return this.#options.cookie.clearCookieHeader({ secure });
  }

  /**
   * Answers a delegation-token operation. Errors that Hadoop answers with a RemoteException body
   * are thrown as `KmsRequestError`s; the pseudo handler's bare 403 is returned as a reply.
   */
  async delegationTokenReply(op: DelegationTokenOperation, request: AuthRequest): Promise<AuthReply> {
    const required = DELEGATION_TOKEN_OPERATIONS[op];
    if (request.method !== required) {
      throw new KmsRequestError(
        'ERR_KMS_BAD_REQUEST',
        `Wrong HTTP method [${request.method}] for operation [${op}], it should be [${required}]`,
      );
    }
    let user: KmsUser | undefined;
    const cookie = this.#options.cookie.verify(header(request.headers, 'cookie'));
    if (cookie !== undefined && 'user' in cookie) user = this.user(cookie.user);
    if (user === undefined && op !== 'CANCELDELEGATIONTOKEN') {
      // Only real authentication obtains or renews a token: a delegation token does not.
      const name = request.params.get('user.name');
      if (name !== null && name !== '') {
        user = this.user(name);
      } else if (this.#options.anonymousAllowed) {
        user = this.user(ANONYMOUS_USER);
      } else {
        return { status: 403, headers: { 'www-authenticate': PSEUDO_AUTH }, body: '', user: undefined };
      }
    }
    if (user !== undefined) user = this.#withDoAs(user, request);
    const json = { 'content-type': 'application/json; charset=utf-8' };
    switch (op) {
      case 'GETDELEGATIONTOKEN': {
        const owner = user as KmsUser;
        const urlString = await this.#refusalsAsAuthFailure(() =>
          this.#options.tokens.create({
            owner: owner.name,
            renewer: request.params.get('renewer') ?? owner.shortName,
            realUser: owner.realUser?.name ?? '',
            service: request.params.get('service') ?? undefined,
          }),
        );
        return { status: 200, headers: json, body: jsonLine({ Token: { urlString } }), user: owner };
      }
      case 'RENEWDELEGATIONTOKEN': {
        const token = this.#tokenParam(op, request);
        const renewer = user as KmsUser;
        const expiresMs = await this.#refusalsAsAuthFailure(() =>
          this.#options.tokens.renew(token, renewer.shortName),
        );
        return { status: 200, headers: json, body: jsonLine({ long: expiresMs }), user: renewer };
      }
      case 'CANCELDELEGATIONTOKEN': {
        const token = this.#tokenParam(op, request);
        try {
          // Without authentication the cancel proceeds as the token's owner (Hadoop's rule).
          const canceller = user?.name ?? shortUserName((await this.#options.tokens.verify(token)).owner);
          await this.#options.tokens.cancel(token, canceller);
        } catch (error) {
          if (!isTokenRefusal(error)) throw error;
          throw new KmsRequestError(
            'ERR_KMS_TOKEN_CANCEL_FAILED',
            'Invalid delegation token, cannot cancel',
            { cause: error },
          );
        }
        return { status: 200, headers: {}, body: '', user };
      }
    }
  }

  #tokenParam(op: DelegationTokenOperation, request: AuthRequest): string {
    const token = request.params.get('token');
    if (token === null) {
      throw new KmsRequestError('ERR_KMS_BAD_REQUEST', `Operation [${op}] requires the parameter [token]`);
    }
    if (!isTokenUrlString(token)) {
      throw op === 'CANCELDELEGATIONTOKEN'
        ? new KmsRequestError('ERR_KMS_TOKEN_CANCEL_FAILED', 'Invalid delegation token, cannot cancel')
        : new KmsRequestError('ERR_KMS_AUTHENTICATION_FAILED', NOT_A_TOKEN);
    }
    return token;
  }

  async #refusalsAsAuthFailure<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (!isTokenRefusal(error)) throw error;
      throw new KmsRequestError('ERR_KMS_AUTHENTICATION_FAILED', javaExceptionText(error), { cause: error });
    }
  }

  #withDoAs(user: KmsUser, request: AuthRequest): KmsUser {
    const doAs = doAsParam(request.params);
    if (doAs === undefined || doAs === '') return user;
    const proxied = this.user(doAs, user);
    this.#options.proxyUsers.authorize(user, proxied, request.remoteAddress);
    return proxied;
  }
}
