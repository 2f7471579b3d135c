import { KmsRequestError } from '../../kms-errors.js';
import type { GroupResolver } from '../acl/group-resolver.js';
import { shortUserName, type KmsUser } from '../acl/kms-user.js';
import type { AuthCookie } from './auth-cookie.js';
import type { ProxyUsers } from './proxy-users.js';
import { isTokenUrlString } from '../operations/kms-input.js';
import { NOT_A_TOKEN, isTokenRefusal, javaExceptionText, type TokenService } from './token-service.js';

/** Header carrying a delegation token (checked before the `delegation` parameter). */
export const DELEGATION_TOKEN_HEADER = 'x-hadoop-delegation-token';
/** The `WWW-Authenticate` value of Hadoop's pseudo (simple) authentication. */
export const PSEUDO_AUTH = 'PseudoAuth';
/** The user of anonymous requests, when `simple.anonymous.allowed` is true (Hadoop's static web user). */
export const ANONYMOUS_USER = 'dr.who';

/** What the authenticator needs to know of a request. */
export interface AuthRequest {
  readonly method: string;
  readonly params: URLSearchParams;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly remoteAddress: string;
  readonly secure: boolean;
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

/**
 * Hadoop's KMS authentication filter for simple authentication: the signed `hadoop.auth` cookie
 * first, then a delegation token (`X-Hadoop-Delegation-Token` header, else `delegation`
 * parameter), then `user.name`; `doas` impersonation under the proxy-user rules; and, for the
 * delegation-token operations, real authentication only. It authenticates and nothing else:
 * the token operations themselves are `TokenOperations`, and the HTTP layer answers.
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

  /**
   * Authenticates an ordinary request. Throws a 401 (`ERR_KMS_AUTHENTICATION_REQUIRED`, with
   * `WWW-Authenticate: PseudoAuth`) when nothing authenticates it, a 403
   * (`ERR_KMS_AUTHENTICATION_FAILED`) for a bad delegation token, and a 403
   * (`ERR_KMS_ACCESS_DENIED`) for a refused `doas`. Only a delegation token needs the token store,
   * so only that answer is a promise (rejected with those errors): a cookie or `user.name` is
   * answered (or refused, by a throw) at once, without a promise per request.
   */
  authenticate(request: AuthRequest): AuthSuccess | Promise<AuthSuccess> {
    const cookie = this.#options.cookie.verify(header(request.headers, 'cookie'));
    if (cookie !== undefined && 'user' in cookie) {
      return { user: this.#withDoAs(this.user(cookie.user), request), via: 'cookie', setCookie: undefined };
    }
    const token =
      header(request.headers, DELEGATION_TOKEN_HEADER) ?? request.params.get('delegation') ?? undefined;
    if (token !== undefined) return this.#tokenUser(token);
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

  async #tokenUser(token: string): Promise<AuthSuccess> {
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

  /** The header that clears the cookie, sent with authentication failures (as Hadoop does). */
  clearCookie(secure: boolean): string {
    return this.#options.cookie.clearCookieHeader({ secure });
  }

  /**
   * Authenticates a delegation-token operation, by real authentication only: the cookie, else
   * `user.name` (else the anonymous user when allowed); a delegation token does not obtain or
   * renew tokens. For a cancel (`optional`) only the cookie counts and nothing is required: the
   * cancel then acts as the token's owner. Throws `ERR_KMS_AUTHENTICATION_REQUIRED` when a get or
   * renewal is not authenticated, and `ERR_KMS_ACCESS_DENIED` for a refused `doas`.
   */
  authenticateLogin(request: AuthRequest, optional: boolean): KmsUser | undefined {
    let user: KmsUser | undefined;
    const cookie = this.#options.cookie.verify(header(request.headers, 'cookie'));
    if (cookie !== undefined && 'user' in cookie) user = this.user(cookie.user);
    if (user === undefined && !optional) {
      const name = request.params.get('user.name');
      if (name !== null && name !== '') {
        user = this.user(name);
      } else if (this.#options.anonymousAllowed) {
        user = this.user(ANONYMOUS_USER);
      } else {
        throw new KmsRequestError('ERR_KMS_AUTHENTICATION_REQUIRED', 'Authentication required');
      }
    }
    return user === undefined ? undefined : this.#withDoAs(user, request);
  }

  #withDoAs(user: KmsUser, request: AuthRequest): KmsUser {
    const doAs = doAsParam(request.params);
    if (doAs === undefined || doAs === '') return user;
    const proxied = this.user(doAs, user);
    this.#options.proxyUsers.authorize(user, proxied, request.remoteAddress);
    return proxied;
  }
}
