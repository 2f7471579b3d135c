// The client half of Hadoop's Kerberos HTTP authentication, as its KerberosAuthenticator speaks
// it: an OPTIONS request to the call's URL without credentials; on 401 + `Negotiate`, a raw
// Kerberos (not SPNEGO-wrapped) GSS exchange in OPTIONS legs asking for mutual authentication;
// the server's last token must complete the context (it proves the server holds the service
// key), and the `hadoop.auth` cookie it sets is what later calls carry until it is refused.
import {
  gssErrorText,
  loadKerberos,
  type GssClientContext,
  type KerberosModule,
} from '@fastpath/hadoop-common';

/** How the client logs in: from the ticket cache, or from a keytab for a principal. */
export interface KerberosLoginOptions {
  /** The client principal (`client@EXAMPLE.COM`). Default: the ticket cache's. */
  readonly principal?: string | undefined;
  /** A keytab to get tickets from (MIT's `KRB5_CLIENT_KTNAME`, set for this process). Default: none. */
  readonly keytab?: string | undefined;
}

/** An HTTP exchange the login needs: any status comes back, none is thrown. */
export type RawExchange = (request: {
  method: 'OPTIONS';
  path: string;
  headers: Record<string, string>;
}) => Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
}>;

/** Why a log-in failed (no ticket, a server that broke the exchange): the message of the error. */
export class SpnegoLoginFailure extends Error {}

const NEGOTIATE = 'Negotiate';
const COOKIE = 'hadoop.auth';
/** The cookie types Hadoop's client takes from a server as Kerberos credentials. */
const KERBEROS_TYPES = new Set(['kerberos', 'kerberos-dt']);

/** The value of the `hadoop.auth` cookie set by an answer; `''` when cleared; `undefined` when not set. */
export function setAuthCookie(headers: Record<string, string | string[] | undefined>): string | undefined {
  const raw = headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  let found: string | undefined;
  for (const line of all) {
    const first = line.split(';', 1)[0] ?? '';
    const eq = first.indexOf('=');
    if (eq === -1 || first.slice(0, eq).trim() !== COOKIE) continue;
    let value = first.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    found = value;
  }
  return found;
}

/** The `t=` of a cookie value. */
function cookieType(value: string): string | undefined {
  for (const part of value.split('&')) if (part.startsWith('t=')) return part.slice(2);
  return undefined;
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * One identity's Kerberos session with one KMS: the cookie it holds, and the log-in that gets it.
 * Log-ins of one session run one at a time; calls waiting for one share it.
 */
export class SpnegoSession {
  readonly #options: KerberosLoginOptions;
  #cookie: string | undefined;
  #pending: Promise<void> | undefined;

  constructor(options: KerberosLoginOptions) {
    this.#options = options;
  }

  /** The cookie to send (`hadoop.auth="…"`), or `undefined` before a log-in. */
  get cookieHeader(): string | undefined {
    return this.#cookie === undefined ? undefined : `${COOKIE}="${this.#cookie}"`;
  }

  /** Keeps the cookie an answer set (a cleared one is dropped). */
  observe(headers: Record<string, string | string[] | undefined>): void {
    const value = setAuthCookie(headers);
    if (value === undefined) return;
    this.#cookie = value === '' ? undefined : value;
  }

  /** Forgets the cookie (the server refused it). */
  drop(): void {
    this.#cookie = undefined;
  }

  /** Logs in against `path` (the call's own path and query) unless a log-in already holds a cookie. */
  login(exchange: RawExchange, host: string, path: string): Promise<void> {
    this.#pending ??= this.#login(exchange, host, path).finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #login(exchange: RawExchange, host: string, path: string): Promise<void> {
    const probe = await exchange({ method: 'OPTIONS', path, headers: {} });
    if (isSuccess(probe.status)) {
      const cookie = setAuthCookie(probe.headers);
      if (cookie !== undefined && KERBEROS_TYPES.has(cookieType(cookie) ?? '')) {
        this.#cookie = cookie;
        return;
      }
    }
    const challenge = header(probe.headers, 'www-authenticate');
    if (probe.status !== 401 || challenge === undefined || !challenge.trim().startsWith(NEGOTIATE)) {
      throw new SpnegoLoginFailure(
        `the server does not ask for Kerberos (OPTIONS answered ${probe.status}${
          challenge === undefined ? '' : ` with WWW-Authenticate: ${challenge}`
        })`,
      );
    }
    const context = await this.#initiate(host);
    let token: string;
    try {
      token = await context.step('');
    } catch (error) {
      throw new SpnegoLoginFailure(gssErrorText(error));
    }
    for (;;) {
      const leg = await exchange({
        method: 'OPTIONS',
        path,
        headers: { authorization: `${NEGOTIATE} ${token}` },
      });
      // Hadoop's KMS answers an OPTIONS that asks for JSON with 204 once authenticated (its REST
      // layer has no OPTIONS resource); Java's client asks for HTML and gets 200. Both succeed.
      if (!isSuccess(leg.status) && leg.status !== 401) {
        throw new SpnegoLoginFailure(`Invalid SPNEGO sequence, status code: ${leg.status}`);
      }
      const answer = header(leg.headers, 'www-authenticate')?.trim();
      if (answer === undefined || !answer.startsWith(NEGOTIATE) || answer.length === NEGOTIATE.length) {
        // A 200 without the server's token: it did not prove it holds the service key.
        throw new SpnegoLoginFailure(
          `Invalid SPNEGO sequence, 'WWW-Authenticate' header incorrect: ${answer ?? 'none'} (mutual authentication not completed)`,
        );
      }
      try {
        token = await context.step(answer.slice(NEGOTIATE.length).trim());
      } catch (error) {
        throw new SpnegoLoginFailure(`the server's reply does not authenticate it: ${gssErrorText(error)}`);
      }
      if (context.contextComplete) {
        if (!isSuccess(leg.status))
          throw new SpnegoLoginFailure(`Invalid SPNEGO sequence, status code: ${leg.status}`);
        const cookie = setAuthCookie(leg.headers);
        if (cookie === undefined || cookie === '') {
          throw new SpnegoLoginFailure('the server accepted the ticket but set no hadoop.auth cookie');
        }
        this.#cookie = cookie;
        return;
      }
    }
  }

  async #initiate(host: string): Promise<GssClientContext> {
    let kerberos: KerberosModule;
    try {
      kerberos = await loadKerberos();
    } catch (error) {
      // KerberosUnavailableError: its message says what to install.
      throw new SpnegoLoginFailure((error as Error).message);
    }
    if (this.#options.keytab !== undefined) process.env['KRB5_CLIENT_KTNAME'] = this.#options.keytab;
    try {
      // Hadoop's client targets HTTP/<host of the URL, lower case>, without DNS canonicalisation
      // (krb5.conf's dns_canonicalize_hostname=false keeps it so), in the raw Kerberos mechanism.
      return await kerberos.initializeClient(`HTTP@${host.toLowerCase()}`, {
        mechOID: kerberos.GSS_MECH_OID_KRB5,
        gssFlag: kerberos.GSS_C_MUTUAL_FLAG | kerberos.GSS_C_DELEG_FLAG,
        ...(this.#options.principal === undefined ? {} : { principal: this.#options.principal }),
      });
    } catch (error) {
      throw new SpnegoLoginFailure(gssErrorText(error));
    }
  }
}
