// The server's half of KERBEROS (SASL GSSAPI, RFC 4752) for the test server, in the order the
// JDK's GssKrb5Server answers Hadoop's client (spec §3.5): the client's AP-REQ accepted with the
// service keytab, the AP-REP sent as a CHALLENGE (mutual authentication), then the wrapped layer
// offer, then the client's wrapped choice checked (one layer, offered; no authorization id other
// than the ticket's principal) before SUCCESS.
import { splitPrincipal } from '../internal/sasl/server-principal.js';
import type { SaslQop } from '../internal/sasl/digest-md5.js';
import { GssContext, gssAddon } from '../internal/sasl/gss-native.js';
import {
  decodeLayerMessage,
  encodeLayerMessage,
  GSS_LAYER,
  gssSecurityLayer,
  qopsOf,
} from '../internal/sasl/gssapi-layer.js';
import type { SaslSecurityLayer } from '../sasl-mechanism.js';
import type { HadoopRpcTestSaslMechanism, HadoopRpcTestSaslStep } from './hadoop-rpc-test-server.js';

/** Options of {@link kerberosTestSaslMechanism}. */
export interface KerberosTestSaslMechanismOptions {
  /**
   * The server's principal, `service/host@REALM` (e.g. `om/localhost@EXAMPLE.COM`): its service and
   * host are offered as the SASL protocol and server id.
   */
  principal: string;
  /** The keytab holding the principal's key. Default: the one libkrb5 is pointed at (`KRB5_KTNAME`). */
  keytab?: string;
  /** The QOPs offered (`hadoop.rpc.protection`). Default: `['auth']`. */
  qop?: readonly SaslQop[];
}

/** The receive buffer the server advertises with its layer offer: the JDK's default. */
const SERVER_MAX_BUFFER = 65536;

/**
 * A per-connection factory for the test server's `saslMechanism` option. Needs the package's
 * GSS-API addon; a refused ticket ends the connection with FATAL `FATAL_UNAUTHORIZED`.
 *
 * @example
 * ```ts
 * await using server = await startHadoopRpcTestServer({
 *   protocols: [testRpcProtocol()],
 *   authMethods: [],
 *   saslMechanism: kerberosTestSaslMechanism({ principal: 'hrpc/localhost@EXAMPLE.COM', keytab, qop: ['auth-conf'] }),
 * });
 * ```
 */
export function kerberosTestSaslMechanism(
  options: KerberosTestSaslMechanismOptions,
): () => HadoopRpcTestSaslMechanism {
  const { service, host } = splitPrincipal(options.principal);
  if (!host) throw new Error(`kerberosTestSaslMechanism: ${options.principal} has no host part`);
  const qops = options.qop ?? ['auth'];
  const offer = qops.reduce((mask, q) => mask | GSS_LAYER[q], 0);
  return () => {
    let context: GssContext | undefined;
    let stage: 'accept' | 'offer' | 'choice' | 'done' = 'accept';
    let layer: SaslSecurityLayer | undefined;
    const mechanism: HadoopRpcTestSaslMechanism = {
      method: 'KERBEROS',
      mechanism: 'GSSAPI',
      protocol: service,
      serverId: host,
      get securityLayer() {
        return layer;
      },
      get authenticatedUser() {
        return context?.initiator;
      },
      async evaluate(token: Uint8Array): Promise<HadoopRpcTestSaslStep> {
        if (stage === 'accept') {
          const gss = gssAddon();
          if (typeof gss === 'string') throw new Error(gss);
          context = GssContext.accept(gss, options.keytab);
          const reply = await context.step(token);
          if (!context.complete) throw new Error('GSSAPI: the context needs more than one client token');
          stage = 'offer';
          return { done: false, token: reply };
        }
        const established = context as GssContext;
        if (stage === 'offer') {
          stage = 'choice';
          return {
            done: false,
            token: established.wrap(encodeLayerMessage(offer, SERVER_MAX_BUFFER), false),
          };
        }
        if (stage !== 'choice') throw new Error('GSSAPI: the exchange is over');
        const choice = decodeLayerMessage(established.unwrap(token).data, true);
        if (choice === undefined) throw new Error("GSSAPI: the client's layer choice is not 4 bytes");
        const chosen = qopsOf(choice.layers);
        if (chosen.length !== 1 || !qops.includes(chosen[0] as SaslQop)) {
          throw new Error(`GSSAPI: the client chose a layer not offered (${choice.layers})`);
        }
        if (choice.authzid !== '' && choice.authzid !== established.initiator) {
          throw new Error(`GSSAPI: ${established.initiator ?? '?'} may not act as ${choice.authzid}`);
        }
        const qop = chosen[0] as SaslQop;
        if (qop !== 'auth') layer = gssSecurityLayer(established, qop === 'auth-conf');
        stage = 'done';
        return { done: true };
      },
    };
    return mechanism;
  };
}
