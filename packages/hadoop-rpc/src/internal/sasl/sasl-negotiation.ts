// The client's half of SASL negotiation (Hadoop RPC spec §3.3), one code path for every method:
// NEGOTIATE, then the first entry of the server's offer a configured mechanism accepts, INITIATE,
// and CHALLENGE/RESPONSE rounds until SUCCESS. The mechanisms do the method-specific work behind
// the SaslMechanism interface.
import { HadoopRpcSaslError } from '../../hadoop-rpc-errors.js';
import type {
  SaslAuth,
  SaslMechanism,
  SaslMechanismSession,
  SaslSecurityLayer,
  SaslServerInfo,
} from '../../sasl-mechanism.js';
import { SIMPLE_SASL_MECHANISM } from '../../sasl-mechanism.js';
import { rpc, type hadoop } from '../proto/wire.js';

type SaslMessage = hadoop.common.IRpcSaslProto;
type SaslAuthMessage = hadoop.common.RpcSaslProto.ISaslAuth;

/** How the connection carries SASL messages during negotiation (call id −33 both ways). */
export interface SaslChannel {
  send(message: SaslMessage): void;
  /** The server's next SASL message; rejects on an error reply or a non-SASL message. */
  receive(): Promise<hadoop.common.RpcSaslProto>;
}

/** What negotiation settled. */
export interface SaslOutcome {
  /** The method used: `SIMPLE`, `KERBEROS`, `TOKEN`. */
  method: string;
  securityLayer: SaslSecurityLayer | undefined;
  contextUser: SaslMechanismSession['contextUser'];
}

const State = rpc.RpcSaslProto.SaslState;
const stateName = (state: number): string => State[state] ?? String(state);

const has = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** A decoded offer as the public {@link SaslAuth}, `undefined` where the field was absent. */
function toSaslAuth(m: hadoop.common.RpcSaslProto.ISaslAuth): SaslAuth {
  return {
    method: m.method ?? '',
    mechanism: m.mechanism ?? '',
    protocol: has(m, 'protocol') ? (m.protocol ?? '') : undefined,
    serverId: has(m, 'serverId') ? (m.serverId ?? '') : undefined,
    challenge: has(m, 'challenge') && m.challenge ? m.challenge : undefined,
  };
}

/**
 * The chosen offer as INITIATE echoes it: the same fields present (the server compares by protobuf
 * equality, so an empty `protocol` must stay present), the challenge cleared.
 */
function echoOf(auth: SaslAuth): SaslAuthMessage {
  return {
    method: auth.method,
    mechanism: auth.mechanism,
    ...(auth.protocol === undefined ? {} : { protocol: auth.protocol }),
    ...(auth.serverId === undefined ? {} : { serverId: auth.serverId }),
  };
}

const describeOffer = (offer: readonly SaslAuth[]): string[] =>
  offer.map((a) => (a.mechanism ? `${a.method}/${a.mechanism}` : a.method));

/** Runs negotiation to SUCCESS (or to INITIATE for a method that needs no reply). */
export async function negotiateSasl(
  channel: SaslChannel,
  mechanisms: readonly SaslMechanism[],
  server: SaslServerInfo,
): Promise<SaslOutcome> {
  channel.send({ state: State.NEGOTIATE });
  const first = await channel.receive();
  if (first.state === State.SUCCESS) {
    // A SIMPLE-only server (spec §1.4 B). A client without SIMPLE is a secure client: Hadoop's
    // refuses to fall back unless ipc.client.fallback-to-simple-auth-allowed.
    if (!mechanisms.some((m) => m.method === SIMPLE_SASL_MECHANISM.method)) {
      throw new HadoopRpcSaslError(
        server.address,
        'the server asks to fall back to SIMPLE authentication, which this client is not configured to use',
        ['SIMPLE'],
      );
    }
    return { method: 'SIMPLE', securityLayer: undefined, contextUser: 'default' };
  }
  if (first.state !== State.NEGOTIATE) {
    throw new HadoopRpcSaslError(
      server.address,
      `expected NEGOTIATE or SUCCESS, the server sent ${stateName(first.state)}`,
      [],
    );
  }
  const offer = first.auths.map(toSaslAuth);
  let chosen: { auth: SaslAuth; mechanism: SaslMechanism } | undefined;
  for (const auth of offer) {
    const mechanism = mechanisms.find(
      (m) => m.method === auth.method && m.mechanism === auth.mechanism && m.accepts(auth, server),
    );
    if (mechanism) {
      chosen = { auth, mechanism };
      break;
    }
  }
  if (chosen === undefined) {
    const offered = describeOffer(offer);
    throw new HadoopRpcSaslError(
      server.address,
      `client cannot authenticate via:[${offer.map((a) => a.method).join(', ')}] (offered: ${offered.join(', ') || 'nothing'}; this client has ${mechanisms.map((m) => m.method).join(', ')})`,
      offered,
    );
  }
  const session = await chosen.mechanism.start(chosen.auth, server);
  const initial = await session.initialResponse();
  channel.send({
    state: State.INITIATE,
    auths: [echoOf(chosen.auth)],
    ...(initial === undefined ? {} : { token: initial }),
  });
  const outcome = (): SaslOutcome => ({
    method: chosen.auth.method,
    securityLayer: session.securityLayer(),
    contextUser: session.contextUser,
  });
  if (session.completesWithoutReply) return outcome();
  for (;;) {
    const reply = await channel.receive();
    if (reply.state === State.CHALLENGE) {
      const response = await session.evaluateChallenge(reply.token ?? new Uint8Array(0));
      channel.send({ state: State.RESPONSE, ...(response === undefined ? {} : { token: response }) });
      continue;
    }
    if (reply.state !== State.SUCCESS) {
      throw new HadoopRpcSaslError(
        server.address,
        `unexpected SASL state ${stateName(reply.state)} during ${chosen.auth.method}`,
        describeOffer(offer),
      );
    }
    if (has(reply, 'token') && reply.token.length > 0) {
      const extra = await session.evaluateChallenge(reply.token);
      if (extra !== undefined) {
        throw new HadoopRpcSaslError(
          server.address,
          'client generated a spurious response',
          describeOffer(offer),
        );
      }
    }
    if (!session.complete) {
      throw new HadoopRpcSaslError(server.address, 'client is out of sync with server', describeOffer(offer));
    }
    return outcome();
  }
}
