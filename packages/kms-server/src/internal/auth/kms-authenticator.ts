import { KmsRequestError } from '../../kms-errors.js';
import type { GroupResolver } from '../acl/group-resolver.js';
import { shortUserName, type KmsUser } from '../acl/kms-user.js';
import type { AuthCookie } from './auth-cookie.js';
import { SpnegoRefusal, type SpnegoAcceptor } from '../kerberos/spnego-acceptor.js';
import type { ProxyUsers } from './proxy-users.js';
import { isTokenUrlString } from '../operations/kms-input.js';
import { NOT_A_TOKEN, isTokenRefusal, javaExceptionText, type TokenService } from './token-service.js';

/** Header carrying a delegation token (checked before the `delegation` parameter). */
export const DELEGATION_TOKEN_HEADER = 'x-hadoop-delegation-token';
/** The `WWW-Authenticate` value of Hadoop's pseudo (simple) authentication. */
export const PSEUDO_AUTH = 'PseudoAuth';
/** The `WWW-Authenticate` challenge of Kerberos mode (SPNEGO, RFC 4559). */
export const NEGOTIATE = 'Negotiate';
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
  readonly via: 'cookie' | 'token' | 'simple' | 'anonymous' | 'kerberos';
  readonly setCookie: string | undefined;
  /** `Negotiate <mutual-authentication reply>` after a SPNEGO exchange that produced one. */
  readonly wwwAuthenticate?: string | undefined;
}

/** Who a delegation-token operation acts as (none: a cancel without a cookie), and headers to send. */
export interface LoginOutcome {
  readonly user: KmsUser | undefined;
  readonly wwwAuthenticate?: string | undefined;
}

/** Options of {@link KmsAuthenticator}. */
export interface KmsAuthenticatorOptions {
  cookie: AuthCookie;
  tokens: TokenService;
  proxyUsers: ProxyUsers;
  groups: GroupResolver;
  anonymousAllowed: boolean;
  /** Kerberos mode: SPNEGO replaces `user.name`. Default: simple mode. */
  spnego?: SpnegoAcceptor | undefined;
}

function header(headers: AuthRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The token of an `Authorization: Negotiate <token>` header (scheme matched as Hadoop does). */
function negotiateToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || !authorization.startsWith(NEGOTIATE)) return undefined;
  return authorization.slice(NEGOTIATE.length).trim();
}

/** The `doas` parameter, matched case-insensitively as Hadoop does. */
function doAsParam(params: URLSearchParams): string | undefined {
  for (const [name, value] of params) if (name.toLowerCase() === 'doas') return value;
  return undefined;
}

/**
 * Hadoop's KMS authentication filter: the signed `hadoop.auth` cookie first, then a delegation
 * token (`X-Hadoop-Delegation-Token` header, else `delegation` parameter), then `user.name` in
 * simple mode or SPNEGO (`Authorization: Negotiate`) in Kerberos mode; `doas` impersonation under the proxy-user rules; and, for the
 * delegation-token operations, real authentication only. It authenticates and nothing else:
 * the token operations themselves are `TokenOperations`, and the HTTP layer answers.
 */
export class KmsAuthenticator {
  readonly #options: KmsAuthenticatorOptions;

  constructor(options: KmsAuthenticatorOptions) {
    this.#options = options;
  }

  /** The `WWW-Authenticate` challenge of a 401: `Negotiate` in Kerberos mode, else `PseudoAuth`. */
  get challenge(): string {
    return this.#options.spnego === undefined ? PSEUDO_AUTH : NEGOTIATE;
  }

  /** Whether the server runs in Kerberos mode. */
  get kerberos(): boolean {
    return this.#options.spnego !== undefined;
  }

  /** A user of this server, with lazily resolved groups. `shortName` defaults to Hadoop's simple one. */
  user(name: string, realUser?: KmsUser, shortName: string = shortUserName(name)): KmsUser {
    const groups = this.#options.groups;
    let cached: readonly string[] | undefined;
    return {
      name,
      shortName,
      auditName: this.kerberos ? name : undefined,
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
    const cookie = this.#cookieUser(request);
    if (cookie !== undefined && 'user' in cookie) {
      return {
        user: this.#withDoAs(cookie.user, request),
        via: 'cookie',
        setCookie: cookie.renewed,
      };
    }
    const token =
      header(request.headers, DELEGATION_TOKEN_HEADER) ?? request.params.get('delegation') ?? undefined;
    if (token !== undefined) return this.#tokenUser(token);
    const refusedCookie = cookie?.error;
    if (this.#options.spnego !== undefined) {
      const negotiate = negotiateToken(header(request.headers, 'authorization'));
      if (negotiate === undefined) {
        throw new KmsRequestError(
          'ERR_KMS_AUTHENTICATION_REQUIRED',
          refusedCookie ?? 'Authentication required',
        );
      }
      return this.#spnego(this.#options.spnego, negotiate, request);
    }
    const name = request.params.get('user.name');
    if (name === null || name === '') {
      if (this.#options.anonymousAllowed) {
        return { user: this.user(ANONYMOUS_USER), via: 'anonymous', setCookie: undefined };
      }
      throw new KmsRequestError(
        'ERR_KMS_AUTHENTICATION_REQUIRED',
        refusedCookie ?? 'Authentication required',
      );
    }
    const user = this.#withDoAs(this.user(name), request);
    return { user, via: 'simple', setCookie: this.#issue(user.realUser ?? user, request.secure) };
  }

  /** The cookie's user, a renewed cookie when inactivity moves it, or why it was refused. */
  #cookieUser(
    request: AuthRequest,
  ): { user: KmsUser; renewed: string | undefined } | { error: string } | undefined {
    const jar = this.#options.cookie;
    const check = jar.verifyDetailed(header(request.headers, 'cookie'));
    if (check === undefined || 'error' in check) return check;
    // In simple mode the short name is derived from the name as for user.name; in Kerberos mode
    // it is the one the name rules gave when the cookie was issued.
    const user = this.kerberos
      ? this.user(check.principal, undefined, check.user)
      : this.user(check.principal === '' ? check.user : check.principal);
    let renewed: string | undefined;
    if (jar.renewsOnUse) {
      const signed = jar.sign(check.user, check.principal, check.expiresMs);
      if (signed !== undefined) renewed = jar.setCookieHeader(signed, { secure: request.secure });
    }
    return { user, renewed };
  }

  #issue(user: KmsUser, secure: boolean): string | undefined {
    const jar = this.#options.cookie;
    const signed = this.kerberos ? jar.sign(user.shortName, user.name) : jar.sign(user.name);
    return signed === undefined ? undefined : jar.setCookieHeader(signed, { secure });
  }

  async #spnego(acceptor: SpnegoAcceptor, token: string, request: AuthRequest): Promise<AuthSuccess> {
    const identity = await this.#acceptSpnego(acceptor, token);
    const real = this.user(identity.principal, undefined, identity.shortName);
    return {
      user: this.#withDoAs(real, request),
      via: 'kerberos',
      setCookie: this.#issue(real, request.secure),
      wwwAuthenticate: identity.wwwAuthenticate,
    };
  }

  async #acceptSpnego(
    acceptor: SpnegoAcceptor,
    token: string,
  ): Promise<{ principal: string; shortName: string; wwwAuthenticate: string | undefined }> {
    try {
      const identity = await acceptor.accept(token);
      return {
        principal: identity.principal,
        shortName: identity.shortName,
        wwwAuthenticate:
          identity.replyToken === undefined ? undefined : `${NEGOTIATE} ${identity.replyToken}`,
      };
    } catch (error) {
      if (!(error instanceof SpnegoRefusal)) throw error;
      throw new KmsRequestError('ERR_KMS_AUTHENTICATION_FAILED', error.message, { cause: error });
    }
  }

  /**
   * The caller of a token operation: in Kerberos mode Hadoop's token handler acts as the
   * authenticated short name (`client`, not `client@REALM`): it owns the tokens it gets.
   */
  #tokenCaller(user: KmsUser): KmsUser {
    return this.kerberos ? this.user(user.shortName) : user;
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
  authenticateLogin(request: AuthRequest, optional: boolean): LoginOutcome | Promise<LoginOutcome> {
    const cookie = this.#cookieUser(request);
    if (cookie !== undefined && 'user' in cookie) {
      return { user: this.#withDoAs(this.#tokenCaller(cookie.user), request) };
    }
    if (optional) return { user: undefined };
    const spnego = this.#options.spnego;
    if (spnego !== undefined) {
      // Hadoop's handler authenticates a get or renewal inline when no cookie came with it.
      const negotiate = negotiateToken(header(request.headers, 'authorization'));
      if (negotiate === undefined) {
        throw new KmsRequestError('ERR_KMS_AUTHENTICATION_REQUIRED', 'Authentication required');
      }
      return this.#acceptSpnego(spnego, negotiate).then((identity) => ({
        user: this.#withDoAs(this.user(identity.shortName), request),
        wwwAuthenticate: identity.wwwAuthenticate,
      }));
    }
    const name = request.params.get('user.name');
    let user: KmsUser;
    if (name !== null && name !== '') {
      user = this.user(name);
    } else if (this.#options.anonymousAllowed) {
      user = this.user(ANONYMOUS_USER);
    } else {
      throw new KmsRequestError('ERR_KMS_AUTHENTICATION_REQUIRED', 'Authentication required');
    }
    return { user: this.#withDoAs(user, request) };
  }

  #withDoAs(user: KmsUser, request: AuthRequest): KmsUser {
    const doAs = doAsParam(request.params);
    if (doAs === undefined || doAs === '') return user;
    const proxied = this.user(doAs, user);
    this.#options.proxyUsers.authorize(user, proxied, request.remoteAddress);
    return proxied;
  }
}
