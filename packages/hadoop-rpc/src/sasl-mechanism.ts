// The seam where authentication methods plug into SASL negotiation (Hadoop RPC spec §3.3). The
// negotiation code (internal/sasl/sasl-negotiation.ts) walks the server's offer in order and asks
// each configured mechanism whether it can serve an entry; SIMPLE is one such mechanism, and
// KERBEROS (GSSAPI) and TOKEN (DIGEST-MD5) are the next ones to implement this interface.

/** One entry of a server's NEGOTIATE offer (`RpcSaslProto.SaslAuth`). */
export interface SaslAuth {
  /** `SIMPLE`, `KERBEROS` or `TOKEN`. */
  readonly method: string;
  /** `''` (SIMPLE), `GSSAPI` (KERBEROS), `DIGEST-MD5` (TOKEN). */
  readonly mechanism: string;
  /** The SASL protocol (service) name: `om` for a Kerberos OM, `''` for TOKEN. */
  readonly protocol: string | undefined;
  /** The SASL server name: the server's host for KERBEROS, `default` for TOKEN. */
  readonly serverId: string | undefined;
  /** DIGEST-MD5's first challenge, piggy-backed on NEGOTIATE. */
  readonly challenge: Uint8Array | undefined;
}

/** What a mechanism knows of the connection it authenticates. */
export interface SaslServerInfo {
  /** `host:port` as the caller gave it. */
  readonly address: string;
  /** The host part of `address`, as the socket connects to it (an IPv6 literal without its brackets). */
  readonly host: string;
  /** The TCP port of `address`, 1-65535. */
  readonly port: number;
  /**
   * The IP address the socket is connected to (`host` resolved): what Hadoop names a server by in
   * a token's service (`hadoop.security.token.service.use_ip`, on by default).
   */
  readonly remoteIp: string;
  /** The IPC protocol name of the connection (e.g. `org.apache.hadoop.hdfs.protocol.ClientProtocol`). */
  readonly protocol: string;
}

/**
 * A security layer negotiated with a QOP of `auth-int` or `auth-conf` (spec §3.6): once SASL
 * succeeds, every frame the client writes is sent as `wrap(frame)` in a WRAP message, and every
 * WRAP message the server sends is `unwrap`ped into framed responses.
 */
export interface SaslSecurityLayer {
  /**
   * Protects outgoing bytes (integrity, plus encryption for `auth-conf`), in sending order, since
   * the layer keeps sequence numbers: the frames of the calls made in one turn of the event loop
   * go together, at most {@link SaslSecurityLayer.maxWrapBytes} a message.
   */
  wrap(plain: Uint8Array): Uint8Array;
  /**
   * The most plain bytes one wrapped message may carry: the receive buffer the server announced
   * during negotiation, less what wrapping adds. Undefined: no limit.
   */
  readonly maxWrapBytes?: number;
  /**
   * Checks (and decrypts) one WRAP token from the server and returns the frames inside; throws when
   * it does not verify, which closes the connection with a {@link HadoopRpcProtocolError}.
   */
  unwrap(wrapped: Uint8Array): Uint8Array;
}

/** One authentication exchange in progress, created by {@link SaslMechanism.start}. */
export interface SaslMechanismSession {
  /**
   * Whether the client goes on without waiting for the server's answer to INITIATE. SIMPLE does
   * (Hadoop's client switches to simple auth and sends the connection context at once).
   */
  readonly completesWithoutReply: boolean;
  /** The token INITIATE carries: the mechanism's first response (to `auth.challenge` if any). */
  initialResponse(): Promise<Uint8Array | undefined>;
  /** The answer to a CHALLENGE (sent as RESPONSE), or to a SUCCESS token (must then be `undefined`). */
  evaluateChallenge(challenge: Uint8Array): Promise<Uint8Array | undefined>;
  /** Whether the exchange has reached its end (checked at SUCCESS). */
  readonly complete: boolean;
  /** After SUCCESS: the security layer, or `undefined` for QOP `auth` (plain frames continue). */
  securityLayer(): SaslSecurityLayer | undefined;
  /**
   * What the connection context's `userInfo` says (spec §1.5): KERBEROS the principal, TOKEN
   * nothing (`{}`); `'default'` (SIMPLE) sends the client's `user` and `realUser` options.
   */
  readonly contextUser:
    | {
        /** The user the calls run as; absent when the server takes it from the authentication. */
        effectiveUser?: string;
        /** The real user behind a proxy user; absent unless impersonating. */
        realUser?: string;
      }
    | 'default';
}

/**
 * An authentication method the client can use when a server offers it over SASL. The client
 * takes the first entry of the server's offer that one of its mechanisms `accepts`.
 *
 * @example
 * ```ts
 * const client = createHadoopRpcClient({ authProtocol: 'sasl', saslMechanisms: [SIMPLE_SASL_MECHANISM] });
 * ```
 */
export interface SaslMechanism {
  /** `SIMPLE`, `KERBEROS` or `TOKEN`: matched with `SaslAuth.method`. */
  readonly method: string;
  /** The SASL mechanism name matched with `SaslAuth.mechanism` (`''` for SIMPLE). */
  readonly mechanism: string;
  /** Whether this mechanism can authenticate to that server for that offer (e.g. holds a token for it). */
  accepts(auth: SaslAuth, server: SaslServerInfo): boolean;
  /** Starts the exchange for the accepted offer. */
  start(auth: SaslAuth, server: SaslServerInfo): SaslMechanismSession | Promise<SaslMechanismSession>;
}

/**
 * SIMPLE over SASL: the client names the user in the connection context, nothing is exchanged.
 * A SIMPLE-only server answers NEGOTIATE with SUCCESS at once; a server that offers SIMPLE among
 * others gets `INITIATE{auths:[SIMPLE]}` and no reply is awaited (spec §3.3 step 3).
 */
export const SIMPLE_SASL_MECHANISM: SaslMechanism = Object.freeze({
  method: 'SIMPLE',
  mechanism: '',
  accepts: (auth: SaslAuth) => auth.method === 'SIMPLE',
  start: (): SaslMechanismSession => ({
    completesWithoutReply: true,
    initialResponse: () => Promise.resolve(undefined),
    evaluateChallenge: () => Promise.resolve(undefined),
    complete: true,
    securityLayer: () => undefined,
    contextUser: 'default',
  }),
});
