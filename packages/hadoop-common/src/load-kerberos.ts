import { importKerberos } from './internal/import-kerberos.js';

// The part of the optional `kerberos` package (mongodb-js, 7.x) fastpath uses, typed here so that
// nothing needs the package (or its types) to compile: simple-auth installs never load it.

/**
 * A GSS acceptor context (`initializeServer`): one per request, since a context cannot be reused,
 * and one `step` for Hadoop's single round trip. `step` runs on libuv's thread pool.
 */
export interface GssServerContext {
  /** Accepts the client's base64 token; resolves with the base64 reply token (the AP-REP) or `''`. */
  step(challenge: string): Promise<string>;
  /** The client principal once accepted (`client@EXAMPLE.COM`). */
  readonly username: string;
  /** The last reply token (base64). */
  readonly response: string;
  /** The service principal the client aimed at (`HTTP/localhost@EXAMPLE.COM`) when the service name was `''`. */
  readonly targetName: string;
  readonly contextComplete: boolean;
}

/** A GSS initiator context (`initializeClient`); `step('')` first, then with each reply. Off the event loop. */
export interface GssClientContext {
  step(challenge: string): Promise<string>;
  wrap(challenge: string, options?: { user?: string; protect?: boolean }): Promise<string>;
  unwrap(challenge: string): Promise<string>;
  /** The client principal. */
  readonly username: string;
  /** The last token to send (base64). */
  readonly response: string;
  readonly contextComplete: boolean;
}

/** Options of `initializeClient`. */
export interface GssClientOptions {
  /** The client principal whose credentials to use (from `KRB5CCNAME`, or `KRB5_CLIENT_KTNAME`). Default: the cache's. */
  principal?: string;
  /** GSS flags, e.g. `GSS_C_MUTUAL_FLAG | GSS_C_DELEG_FLAG`. */
  gssFlag?: number;
  /** `GSS_MECH_OID_KRB5` (raw Kerberos, as Hadoop's client) or `GSS_MECH_OID_SPNEGO`. Default: the library's (krb5). */
  mechOID?: number;
}

/**
 * The `kerberos` package's exports that fastpath uses. libkrb5 inside this process reads
 * `KRB5_CONFIG`, `KRB5CCNAME`, `KRB5_KTNAME` and `KRB5_CLIENT_KTNAME` from the environment.
 */
export interface KerberosModule {
  /** `service` is a host-based name (`HTTP@localhost`), or `''` to accept any key of the keytab. */
  initializeServer(service: string): Promise<GssServerContext>;
  /** `service` is a host-based name (`HTTP@localhost`). */
  initializeClient(service: string, options?: GssClientOptions): Promise<GssClientContext>;
  readonly GSS_C_DELEG_FLAG: number;
  readonly GSS_C_MUTUAL_FLAG: number;
  readonly GSS_C_REPLAY_FLAG: number;
  readonly GSS_C_SEQUENCE_FLAG: number;
  readonly GSS_C_NO_OID: number;
  readonly GSS_MECH_OID_KRB5: number;
  readonly GSS_MECH_OID_SPNEGO: number;
  readonly version: string;
}

let loaded: Promise<KerberosModule> | undefined;

/**
 * Loads the optional `kerberos` package, once per process, when Kerberos is configured. A failed
 * load is not remembered, so a later call (after an install) tries again.
 *
 * @throws KerberosUnavailableError when the package is missing, was not built or does not load;
 *   the message says what to install
 * @example
 * ```ts
 * const kerberos = await loadKerberos();
 * const client = await kerberos.initializeClient('HTTP@localhost', {
 *   mechOID: kerberos.GSS_MECH_OID_KRB5,
 *   gssFlag: kerberos.GSS_C_MUTUAL_FLAG,
 * });
 * const token = await client.step('');
 * ```
 */
export function loadKerberos(): Promise<KerberosModule> {
  loaded ??= importKerberos('kerberos').catch((err: unknown) => {
    loaded = undefined;
    throw err;
  });
  return loaded;
}
