// The KERBEROS method (Hadoop RPC spec §3.5): SASL GSSAPI with the client's Kerberos ticket,
// mutual authentication, the server's principal checked against the configured one before any
// ticket is sent, and the security layer of hadoop.rpc.protection (RFC 4752's negotiation) with
// every message wrapped for `integrity` and `privacy`. The GSS-API work is done by the package's
// optional native addon on MIT Kerberos; a process without it gets a typed error, not a crash.
import { randomUUID } from 'node:crypto';
import { InvalidOptionError } from '@fastpath/core';
import { gssErrorText, krb5DefaultRealm } from '@fastpath/hadoop-common';
import { HadoopRpcKerberosError, HadoopRpcSaslError, HadoopRpcSaslQopError } from './hadoop-rpc-errors.js';
import type { SaslQop } from './internal/sasl/digest-md5.js';
import { gssFailureReason } from './internal/sasl/gss-failure.js';
import { GSS_FLAGS, GssContext, type GssLogin, gssAddon } from './internal/sasl/gss-native.js';
import {
  decodeLayerMessage,
  encodeLayerMessage,
  GSS_LAYER,
  GSS_MAX_BUFFER,
  gssSecurityLayer,
  qopsOf,
} from './internal/sasl/gssapi-layer.js';
import { checkServerPrincipal } from './internal/sasl/server-principal.js';
import type {
  SaslAuth,
  SaslMechanism,
  SaslMechanismSession,
  SaslSecurityLayer,
  SaslServerInfo,
} from './sasl-mechanism.js';
import { type HadoopRpcProtection, RPC_PROTECTION_QOP } from './token-sasl-mechanism.js';

/** Options of {@link createKerberosSaslMechanism}. */
export interface KerberosSaslMechanismOptions {
  /**
   * The server's Kerberos principal as configured for the protocol (for the OM,
   * `ozone.om.kerberos.principal`, e.g. `om/_HOST@EXAMPLE.COM`): `_HOST` as the host part stands
   * for the canonical host name of the address connected to. A server advertising any other
   * principal is refused before a ticket is sent. Required unless `serverPrincipalPattern` is set.
   */
  serverPrincipal?: string;
  /**
   * A glob the server's advertised principal must match instead (Hadoop's
   * `…kerberos.principal.pattern`, e.g. `om/*@EXAMPLE.COM`). Default: none.
   */
  serverPrincipalPattern?: string;
  /**
   * The client principal to log in as (`alice@EXAMPLE.COM`, `svc/host@EXAMPLE.COM`). Default: the
   * ticket cache's (`KRB5CCNAME`), or with `keytab` the keytab's first principal.
   */
  principal?: string;
  /**
   * A keytab to log in from: tickets are got from it into a cache in memory of this mechanism's
   * own, and got again whenever the last one has ended, so a long-running process stays logged in
   * (Hadoop's `loginUserFromKeytab` with its re-login). The process environment is not changed.
   * Default: none, the ticket cache (`KRB5CCNAME`, filled by `kinit`), which the user renews.
   */
  keytab?: string;
  /**
   * The protections accepted, in order of preference (`hadoop.rpc.protection`). A server offering
   * none of them is refused with `ERR_HADOOP_RPC_SASL_QOP`. Default: `['authentication']`.
   */
  protection?: readonly HadoopRpcProtection[];
}

const PROTECTIONS = Object.keys(RPC_PROTECTION_QOP) as HadoopRpcProtection[];

/**
 * A KERBEROS (GSSAPI) mechanism. Put it after a TOKEN mechanism, as Hadoop's client chooses: a
 * token for the server first, else Kerberos.
 *
 * @example
 * ```ts
 * const client = createHadoopRpcClient({
 *   authProtocol: 'sasl',
 *   saslMechanisms: [
 *     createKerberosSaslMechanism({ serverPrincipal: 'om/_HOST@EXAMPLE.COM', protection: ['privacy'] }),
 *   ],
 * });
 * ```
 */
export function createKerberosSaslMechanism(options: KerberosSaslMechanismOptions): SaslMechanism {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError('options', 'expected an object');
  }
  const { serverPrincipal, serverPrincipalPattern, principal, keytab } = options;
  if (serverPrincipal === undefined && serverPrincipalPattern === undefined) {
    throw new InvalidOptionError(
      'serverPrincipal',
      'expected the server principal (or serverPrincipalPattern)',
    );
  }
  for (const [name, value] of Object.entries({
    serverPrincipal,
    serverPrincipalPattern,
    principal,
    keytab,
  })) {
    if (value !== undefined && (typeof value !== 'string' || value === '')) {
      throw new InvalidOptionError(name, 'expected a non-empty string');
    }
  }
  const protection = options.protection ?? ['authentication'];
  if (protection.length === 0 || protection.some((p) => !PROTECTIONS.includes(p))) {
    throw new InvalidOptionError('protection', `expected a non-empty list of ${PROTECTIONS.join(', ')}`);
  }
  const wanted = protection.map((p) => RPC_PROTECTION_QOP[p]);
  const login: GssLogin = {
    ...(principal === undefined ? {} : { principal }),
    // A memory cache of this mechanism's own: MEMORY caches are process-wide by name, so the name
    // must not collide with another mechanism's (or another copy of this package's).
    ...(keytab === undefined ? {} : { keytab, ccache: `MEMORY:fastpath-hadoop-rpc-${randomUUID()}` }),
  };
  return Object.freeze({
    method: 'KERBEROS',
    mechanism: 'GSSAPI',
    accepts: (auth: SaslAuth) => !!auth.protocol && !!auth.serverId,
    start: async (auth: SaslAuth, server: SaslServerInfo): Promise<SaslMechanismSession> => {
      const fail = (reason: HadoopRpcKerberosError['reason'], message: string, cause?: unknown): never => {
        throw new HadoopRpcKerberosError(server.address, reason, message, cause);
      };
      const advertised = { protocol: auth.protocol as string, serverId: auth.serverId as string };
      const problem = await checkServerPrincipal(
        advertised,
        { principal: serverPrincipal, pattern: serverPrincipalPattern },
        server.host,
        krb5DefaultRealm(),
      );
      if (problem !== undefined) fail('server-principal', problem);
      const gss = gssAddon();
      if (typeof gss === 'string') return fail('unavailable', gss);
      let context: GssContext;
      try {
        context = GssContext.initiate(
          gss,
          `${advertised.protocol}@${advertised.serverId}`,
          GSS_FLAGS.MUTUAL | GSS_FLAGS.REPLAY | GSS_FLAGS.SEQUENCE | GSS_FLAGS.INTEG | GSS_FLAGS.CONF,
          login,
        );
      } catch (error) {
        return fail('other', gssErrorText(error), error);
      }
      return new GssapiSession(context, server.address, wanted);
    },
  });
}

class GssapiSession implements SaslMechanismSession {
  readonly completesWithoutReply = false;
  readonly #context: GssContext;
  readonly #address: string;
  readonly #wanted: readonly SaslQop[];
  #qop: SaslQop | undefined;
  /** The receive buffer the server's layer offer announced. */
  #serverMaxBuffer = 0;

  constructor(context: GssContext, address: string, wanted: readonly SaslQop[]) {
    this.#context = context;
    this.#address = address;
    this.#wanted = wanted;
  }

  get complete(): boolean {
    return this.#qop !== undefined;
  }

  /** Hadoop's client names its full principal (`alice@EXAMPLE.COM`) as the effective user. */
  get contextUser(): { effectiveUser?: string } {
    const principal = this.#context.initiator;
    return principal === undefined ? {} : { effectiveUser: principal };
  }

  async initialResponse(): Promise<Uint8Array> {
    try {
      return await this.#context.step(null);
    } catch (error) {
      const text = gssErrorText(error);
      throw new HadoopRpcKerberosError(this.#address, gssFailureReason(text), text, error);
    }
  }

  async evaluateChallenge(challenge: Uint8Array): Promise<Uint8Array | undefined> {
    if (!this.#context.complete) {
      let reply: Uint8Array;
      try {
        reply = await this.#context.step(challenge);
      } catch (error) {
        throw new HadoopRpcKerberosError(
          this.#address,
          'mutual-auth',
          `the server's reply does not authenticate it: ${gssErrorText(error)}`,
          error,
        );
      }
      if (this.#context.complete && (this.#context.flags & GSS_FLAGS.MUTUAL) === 0) {
        throw new HadoopRpcKerberosError(
          this.#address,
          'mutual-auth',
          'the server did not authenticate itself',
        );
      }
      return reply;
    }
    if (this.#qop !== undefined) {
      throw new HadoopRpcSaslError(
        this.#address,
        'KERBEROS: the server sent a challenge after the layer was chosen',
        ['KERBEROS/GSSAPI'],
      );
    }
    return this.#chooseLayer(challenge);
  }

  #chooseLayer(wrapped: Uint8Array): Uint8Array {
    let offer: ReturnType<typeof decodeLayerMessage>;
    try {
      offer = decodeLayerMessage(this.#context.unwrap(wrapped).data);
    } catch (error) {
      throw new HadoopRpcKerberosError(
        this.#address,
        'mutual-auth',
        `the server's layer offer does not unwrap: ${gssErrorText(error)}`,
        error,
      );
    }
    if (offer === undefined) {
      throw new HadoopRpcSaslError(this.#address, "KERBEROS: the server's layer offer is not 4 bytes", [
        'KERBEROS/GSSAPI',
      ]);
    }
    const offered = qopsOf(offer.layers);
    const qop = this.#wanted.find((q) => offered.includes(q));
    if (qop === undefined) throw new HadoopRpcSaslQopError(this.#address, offered, this.#wanted);
    this.#qop = qop;
    this.#serverMaxBuffer = offer.maxBuffer;
    // RFC 4752: no buffer size without a layer. Hadoop sends no authorization id.
    const choice = encodeLayerMessage(GSS_LAYER[qop], qop === 'auth' ? 0 : GSS_MAX_BUFFER);
    return this.#context.wrap(choice, false);
  }

  securityLayer(): SaslSecurityLayer | undefined {
    if (this.#qop === undefined || this.#qop === 'auth') return undefined;
    return gssSecurityLayer(this.#context, this.#qop === 'auth-conf', this.#serverMaxBuffer);
  }
}
