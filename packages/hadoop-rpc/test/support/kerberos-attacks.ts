// Mechanisms for the Kerberos attack cases, shared by the test server's and Hadoop's: a genuine
// mechanism whose first token is copied on its way out (as a man in the middle would see it), and
// one that sends given bytes as its first token (a replayed or garbage AP-REQ) and nothing more.
import type { SaslMechanism } from '@fastpath/hadoop-rpc';

/** `real`, with every first token it sends kept in `taken`. */
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

/** A KERBEROS mechanism that sends `token` as its AP-REQ, whatever it is. */
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
