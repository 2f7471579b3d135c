import { createHmac, timingSafeEqual } from 'node:crypto';
import { systemClock, type Clock, type Redacted } from '@fastpath/core';

/** Name of Hadoop's authentication cookie. */
export const AUTH_COOKIE_NAME = 'hadoop.auth';
/**
 * The authentication type written in cookies: that of Hadoop's delegation-token-aware pseudo
 * handler, which is what Hadoop's KMS writes in simple mode and the only type it accepts.
 */
export const SIMPLE_AUTH_TYPE = 'simple-dt';
/**
 * The types accepted: Hadoop's, and `simple`, which this server wrote before it wrote Hadoop's,
 * so cookies issued by an older fastpath-kms sharing the secret stay valid until they expire.
 */
const ACCEPTED_AUTH_TYPES: ReadonlySet<string> = new Set([SIMPLE_AUTH_TYPE, 'simple']);

const SIGNATURE = '&s=';
/** RFC 6265 cookie-octet, minus `&` and `=`. */
const COOKIE_SAFE_USER = /^[\x21\x23-\x25\x27-\x2b\x2d-\x3a\x3c\x3e-\x5b\x5d-\x7e]+$/;

/** A verified cookie, or why it was not accepted (Hadoop's messages). */
export type CookieCheck = { user: string } | { error: string } | undefined;

/**
 * Hadoop's signed `hadoop.auth` cookie: `u=<user>&p=<principal>&t=<type>&e=<expires ms>&s=<sig>`,
 * the signature being standard base64 of HMAC-SHA256 over the part before `&s=` under the
 * signature secret (`hadoop-auth`'s `Signer`). Servers sharing the secret accept each other's
 * cookies, Hadoop's included: the type is Hadoop's `simple-dt` both ways.
 *
 * @example
 * ```ts
 * const cookies = new AuthCookie(secret, 36_000_000);
 * reply.header('set-cookie', cookies.setCookieHeader(cookies.sign('alice'), { secure: false }));
 * cookies.verify(request.headers.cookie); // { user: 'alice' }
 * ```
 */
export class AuthCookie {
  readonly #secret: Redacted<Buffer>;
  readonly #validityMs: number;
  readonly #clock: Clock;
  readonly #domain: string | undefined;
  readonly #path: string;

  constructor(
    secret: Redacted<Buffer>,
    validityMs: number,
    options: { clock?: Clock | undefined; domain?: string | undefined; path?: string | undefined } = {},
  ) {
    this.#secret = secret;
    this.#validityMs = validityMs;
    this.#clock = options.clock ?? systemClock;
    this.#domain = options.domain;
    this.#path = options.path ?? '/';
  }

  /**
   * A signed cookie value for `user`, or `undefined` when the name cannot travel in a cookie and
   * come back unchanged: only RFC 6265 cookie octets (printable ASCII without space, `"`, `,`, `;`
   * and `\\`) and not Hadoop's separators `&` and `=`. A header carries Latin-1 at best and
   * clients differ in how they decode it, so a name outside ASCII gets no cookie (its requests
   * authenticate by `user.name` each time) rather than one the server would refuse later.
   */
  sign(user: string): { value: string; expiresMs: number } | undefined {
    if (!COOKIE_SAFE_USER.test(user)) return undefined;
    const expiresMs = this.#clock.now() + this.#validityMs;
    const token = `u=${user}&p=${user}&t=${SIMPLE_AUTH_TYPE}&e=${expiresMs}`;
    return { value: `${token}${SIGNATURE}${this.#signature(token)}`, expiresMs };
  }

  /** Checks the `hadoop.auth` cookie of a `Cookie` header. `undefined` when there is none. */
  verify(cookieHeader: string | undefined): CookieCheck {
    const raw = findCookie(cookieHeader, AUTH_COOKIE_NAME);
    if (raw === undefined || raw === '') return undefined;
    const at = raw.lastIndexOf(SIGNATURE);
    if (at === -1)
      return { error: 'org.apache.hadoop.security.authentication.util.SignerException: Invalid signed text' };
    const token = raw.slice(0, at);
    const given = Buffer.from(raw.slice(at + SIGNATURE.length), 'utf8');
    const expected = Buffer.from(this.#signature(token), 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { error: 'org.apache.hadoop.security.authentication.util.SignerException: Invalid signature' };
    }
    const fields = new Map<string, string>();
    for (const part of token.split('&')) {
      const eq = part.indexOf('=');
      if (eq > 0) fields.set(part.slice(0, eq), part.slice(eq + 1));
    }
    const user = fields.get('u');
    const expires = Number(fields.get('e'));
    if (!user || !fields.has('p') || !fields.has('t') || !Number.isSafeInteger(expires)) {
      return { error: 'Invalid AuthenticationToken, it must have u, p, t and e attributes' };
    }
    if (!ACCEPTED_AUTH_TYPES.has(fields.get('t') ?? '')) return { error: 'Invalid AuthenticationToken type' };
    if (expires !== -1 && this.#clock.now() > expires) return { error: 'AuthenticationToken expired' };
    return { user };
  }

  /** The `Set-Cookie` header for a signed value (Hadoop's quoting and attributes). */
  setCookieHeader(signed: { value: string; expiresMs: number }, options: { secure: boolean }): string {
    return this.#cookie(`"${signed.value}"`, new Date(signed.expiresMs), options.secure);
  }

  /** The `Set-Cookie` header that clears the cookie (sent with authentication failures). */
  clearCookieHeader(options: { secure: boolean }): string {
    return this.#cookie('', new Date(0), options.secure);
  }

  #cookie(value: string, expires: Date, secure: boolean): string {
    let header = `${AUTH_COOKIE_NAME}=${value}; Path=${this.#path}`;
    if (this.#domain !== undefined) header += `; Domain=${this.#domain}`;
    header += `; Expires=${expires.toUTCString()}`;
    if (secure) header += '; Secure';
    return `${header}; HttpOnly`;
  }

  #signature(text: string): string {
    return createHmac('sha256', this.#secret.unwrap()).update(text, 'utf8').digest('base64');
  }
}

/** The value of cookie `name` in a `Cookie` header, without surrounding quotes. */
export function findCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return value;
  }
  return undefined;
}
