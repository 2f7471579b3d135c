import { createHmac, timingSafeEqual } from 'node:crypto';
import { systemClock, type Clock, type Redacted } from '@fastpath/core';
import type { SignerSecretSource } from './signer-secrets.js';

/** Name of Hadoop's authentication cookie. */
export const AUTH_COOKIE_NAME = 'hadoop.auth';
/**
 * The authentication type written in cookies in simple mode: that of Hadoop's
 * delegation-token-aware pseudo handler, which is what Hadoop's KMS writes and accepts.
 */
export const SIMPLE_AUTH_TYPE = 'simple-dt';
/**
 * The type in Kerberos mode: Hadoop's KMS wraps its Kerberos handler in the delegation-token
 * handler, whose type is the wrapped one's (`kerberos`) with `-dt` appended.
 */
export const KERBEROS_AUTH_TYPE = 'kerberos-dt';

/**
 * Types accepted beside the configured one: `simple`, which this server wrote in simple mode
 * before it wrote Hadoop's, so cookies issued by an older fastpath-kms sharing the secret stay
 * valid until they expire. Kerberos mode accepts its own type only, as Hadoop's filter does.
 */
const LEGACY_TYPES: Readonly<Record<string, string>> = { [SIMPLE_AUTH_TYPE]: 'simple' };

const SIGNATURE = '&s=';
/** RFC 6265 cookie-octet, minus `&` and `=`. */
const COOKIE_SAFE = /^[\x21\x23-\x25\x27-\x2b\x2d-\x3a\x3c\x3e-\x5b\x5d-\x7e]+$/;

/** Hadoop's `SignerException` messages, which its filter and its client read. */
const INVALID_SIGNED_TEXT =
  'org.apache.hadoop.security.authentication.util.SignerException: Invalid signed text';
const INVALID_SIGNATURE = 'org.apache.hadoop.security.authentication.util.SignerException: Invalid signature';

/** A verified cookie: the short name and the full principal it was issued to. */
export interface CookieIdentity {
  readonly user: string;
  readonly principal: string;
}

/** A verified cookie, or why it was not accepted (Hadoop's messages). `undefined`: no cookie. */
export type CookieCheck = CookieIdentity | { error: string } | undefined;

/** A signed cookie value, and when it expires (ms since the epoch). */
export interface SignedCookie {
  readonly value: string;
  readonly expiresMs: number;
}

/** Options of {@link AuthCookie}. */
export interface AuthCookieOptions {
  /** The signer's secrets: the current one signs, any of them verifies. */
  secrets: SignerSecretSource;
  /** Cookie lifetime (`token.validity`), milliseconds. */
  validityMs: number;
  /** The type written in `t=` and the one accepted. Default: `simple-dt`. */
  type?: string | undefined;
  /**
   * Inactivity limit (`token.max-inactive-interval`), milliseconds; 0 or less: none. When set,
   * cookies carry `i=` and are renewed on every request they authenticate. Default: none.
   */
  maxInactiveMs?: number | undefined;
  /** `Domain=` attribute (`cookie.domain`). Default: none. */
  domain?: string | undefined;
  /** `Path=` attribute (`cookie.path`). Default: none, as Hadoop's KMS writes it. */
  path?: string | undefined;
  /** Writes `Expires=` (`cookie.persistent`); otherwise a session cookie. Default: false. */
  persistent?: boolean | undefined;
  clock?: Clock | undefined;
}

/**
 * Hadoop's signed `hadoop.auth` cookie (`hadoop-auth`'s `AuthToken`, `Signer` and
 * `AuthenticationFilter`): `u=<short name>&p=<principal>&t=<type>[&i=<inactive ms>]&e=<expires ms>`
 * followed by `&s=` and the standard base64 (padded) of HMAC-SHA256 over the text before it
 * under the signer's current secret. Servers sharing the secret accept each other's cookies,
 * Hadoop's included: the type is Hadoop's both ways (`simple-dt`, `kerberos-dt`).
 *
 * @example
 * ```ts
 * const cookies = new AuthCookie({ secrets: SignerSecrets.fixed(secret), validityMs: 36_000_000 });
 * reply.header('set-cookie', cookies.setCookieHeader(cookies.sign('alice', 'alice@EXAMPLE.COM')!, { secure: false }));
 * cookies.verify(request.headers.cookie); // { user: 'alice', principal: 'alice@EXAMPLE.COM' }
 * ```
 */
export class AuthCookie {
  readonly #secrets: SignerSecretSource;
  readonly #validityMs: number;
  readonly #type: string;
  readonly #accepted: ReadonlySet<string>;
  readonly #maxInactiveMs: number;
  readonly #clock: Clock;
  readonly #domain: string | undefined;
  readonly #path: string | undefined;
  readonly #persistent: boolean;

  constructor(options: AuthCookieOptions) {
    this.#secrets = options.secrets;
    this.#validityMs = options.validityMs;
    this.#type = options.type ?? SIMPLE_AUTH_TYPE;
    const legacy = LEGACY_TYPES[this.#type];
    this.#accepted = new Set(legacy === undefined ? [this.#type] : [this.#type, legacy]);
    this.#maxInactiveMs = options.maxInactiveMs ?? 0;
    this.#clock = options.clock ?? systemClock;
    this.#domain = options.domain;
    this.#path = options.path;
    this.#persistent = options.persistent ?? false;
  }

  /** The type this cookie jar writes (`simple-dt`, `kerberos-dt`). */
  get type(): string {
    return this.#type;
  }

  /** Whether a cookie must be re-issued on every request it authenticates (to move its `i=`). */
  get renewsOnUse(): boolean {
    return this.#maxInactiveMs > 0;
  }

  /**
   * A signed cookie value for `user` (short name) and `principal` (full name; default: `user`),
   * or `undefined` when a name cannot travel in a cookie and come back unchanged: only RFC 6265
   * cookie octets (printable ASCII without space, `"`, `,`, `;` and `\\`) and not Hadoop's
   * separators `&` and `=`. A header carries Latin-1 at best and clients differ in how they
   * decode it, so a name outside ASCII gets no cookie (its requests authenticate each time)
   * rather than one the server would refuse later. `expiresMs` keeps a renewed cookie's expiry.
   */
  sign(user: string, principal: string = user, expiresMs?: number): SignedCookie | undefined {
    if (!COOKIE_SAFE.test(user) || !COOKIE_SAFE.test(principal)) return undefined;
    const now = this.#clock.now();
    const expires = expiresMs ?? now + this.#validityMs;
    const inactive = this.#maxInactiveMs > 0 ? `&i=${now + this.#maxInactiveMs}` : '';
    const token = `u=${user}&p=${principal}&t=${this.#type}${inactive}&e=${expires}`;
    return { value: `${token}${SIGNATURE}${signature(this.#secrets.current(), token)}`, expiresMs: expires };
  }

  /** Checks the `hadoop.auth` cookie of a `Cookie` header. `undefined` when there is none. */
  verify(cookieHeader: string | undefined): CookieCheck {
    const check = this.verifyDetailed(cookieHeader);
    return check === undefined || 'error' in check ? check : { user: check.user, principal: check.principal };
  }

  /** {@link verify}, with the cookie's expiry (for renewing it on use). */
  verifyDetailed(
    cookieHeader: string | undefined,
  ): (CookieIdentity & { expiresMs: number }) | { error: string } | undefined {
    const raw = findCookie(cookieHeader, AUTH_COOKIE_NAME);
    if (raw === undefined || raw === '') return undefined;
    const at = raw.lastIndexOf(SIGNATURE);
    if (at === -1) return { error: INVALID_SIGNED_TEXT };
    const token = raw.slice(0, at);
    const given = Buffer.from(raw.slice(at + SIGNATURE.length), 'utf8');
    const signedByOne = this.#secrets.all().some((secret) => {
      const expected = Buffer.from(signature(secret, token), 'utf8');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!signedByOne) return { error: INVALID_SIGNATURE };
    const fields = new Map<string, string>();
    for (const part of token.split('&')) {
      const eq = part.indexOf('=');
      if (eq > 0) fields.set(part.slice(0, eq), part.slice(eq + 1));
    }
    const user = fields.get('u');
    const principal = fields.get('p');
    const expires = Number(fields.get('e'));
    if (!user || principal === undefined || !fields.has('t') || !Number.isSafeInteger(expires)) {
      return { error: 'Invalid AuthenticationToken, it must have u, p, t and e attributes' };
    }
    if (!this.#accepted.has(fields.get('t') ?? '')) return { error: 'Invalid AuthenticationToken type' };
    const now = this.#clock.now();
    if (expires !== -1 && now > expires) return { error: 'AuthenticationToken expired' };
    const inactive = fields.get('i');
    if (inactive !== undefined) {
      const until = Number(inactive);
      if (!Number.isSafeInteger(until) || (until !== -1 && now > until)) {
        return { error: 'AuthenticationToken expired' };
      }
    }
    return { user, principal, expiresMs: expires };
  }

  /** The `Set-Cookie` header for a signed value (Hadoop's quoting and attributes). */
  setCookieHeader(signed: SignedCookie, options: { secure: boolean }): string {
    return this.#cookie(
      `"${signed.value}"`,
      this.#persistent ? new Date(signed.expiresMs) : undefined,
      options.secure,
    );
  }

  /** The `Set-Cookie` header that clears the cookie (sent with authentication failures). */
  clearCookieHeader(options: { secure: boolean }): string {
    return this.#cookie('', undefined, options.secure);
  }

  #cookie(value: string, expires: Date | undefined, secure: boolean): string {
    let header = `${AUTH_COOKIE_NAME}=${value}`;
    if (this.#path !== undefined) header += `; Path=${this.#path}`;
    if (this.#domain !== undefined) header += `; Domain=${this.#domain}`;
    if (expires !== undefined) header += `; Expires=${cookieDate(expires)}`;
    if (secure) header += '; Secure';
    return `${header}; HttpOnly`;
  }
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number): string => String(n).padStart(2, '0');

/** Hadoop's cookie date, `EEE, dd-MMM-yyyy HH:mm:ss GMT` (dashes, unlike RFC 1123). */
export function cookieDate(date: Date): string {
  return (
    `${DAYS[date.getUTCDay()] ?? ''}, ${two(date.getUTCDate())}-${MONTHS[date.getUTCMonth()] ?? ''}-${date.getUTCFullYear()} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} GMT`
  );
}

function signature(secret: Redacted<Buffer>, text: string): string {
  return createHmac('sha256', secret.unwrap()).update(text, 'utf8').digest('base64');
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
