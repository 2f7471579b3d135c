// Mechanisms for the Kerberos attack cases, shared by the suites against the test server, Hadoop's
// RPC.Server and Ozone's OM: a genuine mechanism whose first token is copied on its way out (as a
// man in the middle would see it), one that sends given bytes as its first token (a replayed or
// garbage AP-REQ) and nothing more, and a genuine one aimed at another service's principal than
// the server's (its ticket is one the server has no key to read).
import type { SaslMechanism } from '../sasl-mechanism.js';

/**
 * `real`, with every first token it sends kept in `taken`.
 *
 * @example
 * ```ts
 * const taken: Uint8Array[] = [];
 * const client = createHadoopRpcClient({ authProtocol: 'sasl', saslMechanisms: [tapped(kerberos, taken)] });
 * ```
 */
export function tapped(real: SaslMechanism, taken: Uint8Array[]): SaslMechanism {
  return {
    method: real.method,
    mechanism: real.mechanism,
    accepts: (auth, server) => real.accepts(auth, server),
    start: async (auth, server) => {
      const session = await real.start(auth, server);
      return {
        completesWithoutReply: session.completesWithoutReply,
        initialResponse: async () => {
          const token = await session.initialResponse();
          if (token !== undefined) taken.push(token);
          return token;
        },
        evaluateChallenge: (challenge) => session.evaluateChallenge(challenge),
        get complete() {
          return session.complete;
        },
        securityLayer: () => session.securityLayer(),
        get contextUser() {
          return session.contextUser;
        },
      };
    },
  };
}

/**
 * A KERBEROS mechanism that sends `token` as its AP-REQ, whatever it is.
 *
 * @example
 * ```ts
 * const attacker = createHadoopRpcClient({ authProtocol: 'sasl', saslMechanisms: [sendingAsKerberos(taken[0])] });
 * ```
 */
export function sendingAsKerberos(token: Uint8Array): SaslMechanism {
  return {
    method: 'KERBEROS',
    mechanism: 'GSSAPI',
    accepts: () => true,
    start: () => ({
      completesWithoutReply: false,
      initialResponse: () => Promise.resolve(token),
      evaluateChallenge: () => Promise.resolve(new Uint8Array(0)),
      complete: false,
      securityLayer: () => undefined,
      contextUser: {},
    }),
  };
}

/**
 * `real` (a KERBEROS mechanism whose server-principal check accepts `service/<server's host>`,
 * e.g. through `serverPrincipalPattern: '*'`), told that the server offered `service` as its
 * protocol: it asks the KDC for a ticket to `service/<host>` and presents that one.
 *
 * @example
 * ```ts
 * const astray = aimedAt(createKerberosSaslMechanism({ serverPrincipalPattern: '*' }), 'other');
 * ```
 */
export function aimedAt(real: SaslMechanism, service: string): SaslMechanism {
  return {
    method: real.method,
    mechanism: real.mechanism,
    accepts: (auth, server) => real.accepts({ ...auth, protocol: service }, server),
    start: (auth, server) => real.start({ ...auth, protocol: service }, server),
  };
}
