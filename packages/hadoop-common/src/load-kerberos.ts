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
  /** Whether the context is established: true after a `step` that accepted the client's token. */
  readonly contextComplete: boolean;
}

/** A GSS initiator context (`initializeClient`); `step('')` first, then with each reply. Off the event loop. */
export interface GssClientContext {
  /**
   * One step of context establishment: `''` first, then each base64 token the server replied.
   * Resolves with the base64 token to send (also in `response`); rejects when GSS refuses.
   */
  step(challenge: string): Promise<string>;
  /**
   * SASL GSSAPI's last client step: wraps the base64 `challenge` (what `unwrap` returned) with the
   * context's key. With `user`, the first 4 bytes (security layer and buffer size) are kept and the
   * authorization id `user` appended; `protect` asks for encryption. Resolves with base64.
   */
  wrap(challenge: string, options?: { user?: string; protect?: boolean }): Promise<string>;
  /** Verifies (and decrypts) a base64 token the server wrapped; resolves with its base64 plaintext. */
  unwrap(challenge: string): Promise<string>;
  /** The client principal. */
  readonly username: string;
  /** The last token to send (base64). */
  readonly response: string;
  /** Whether the context is established (after the step that took the server's last token). */
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
  /** `gssFlag` bit: delegate (forward) the client's credentials to the server. */
  readonly GSS_C_DELEG_FLAG: number;
  /** `gssFlag` bit: ask the server to authenticate itself too (the AP-REP). */
  readonly GSS_C_MUTUAL_FLAG: number;
  /** `gssFlag` bit: detect replayed wrapped messages. */
  readonly GSS_C_REPLAY_FLAG: number;
  /** `gssFlag` bit: detect wrapped messages out of sequence. */
  readonly GSS_C_SEQUENCE_FLAG: number;
  /** `mechOID` value for no mechanism chosen: the library's default. */
  readonly GSS_C_NO_OID: number;
  /** `mechOID` value for raw Kerberos 5, as Hadoop's RPC client uses over SASL GSSAPI. */
  readonly GSS_MECH_OID_KRB5: number;
  /** `mechOID` value for SPNEGO, as HTTP `Negotiate` authentication uses. */
  readonly GSS_MECH_OID_SPNEGO: number;
  /** The loaded `kerberos` package's version, e.g. `7.0.0`. */
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

/**
 * The first line of a GSS-API failure's message, for an error of one's own: native addons' errors
 * may come from another realm (not `instanceof Error`), and their later lines add nothing.
 *
 * @example
 * ```ts
 * try { await client.step(''); } catch (error) { throw new Error(`log-in failed: ${gssErrorText(error)}`); }
 * ```
 */
export function gssErrorText(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  const text = typeof message === 'string' ? message : String(error);
  return text.split('\n')[0] ?? 'GSS failure';
}
