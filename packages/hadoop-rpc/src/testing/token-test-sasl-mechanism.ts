// The server's half of TOKEN (DIGEST-MD5) for the test server, as Hadoop's server offers it
// (spec §3.2, §3.4): protocol "" and serverId "default", the challenge on NEGOTIATE, the password
// looked up by the secret manager from the identifier, rspauth in SUCCESS, the security layer after.
import type { SaslSecurityLayer } from '../sasl-mechanism.js';
import {
  type DigestParams,
  DIGEST_CIPHER,
  digestResponse,
  digestRspAuth,
  digestSecurityLayer,
  formatDigestChallenge,
  newNonce,
  parseDigestDirectives,
  sameDigest,
  type SaslQop,
} from '../internal/sasl/digest-md5.js';
import type { HadoopRpcTestSaslMechanism } from './hadoop-rpc-test-server.js';

/** Options of {@link tokenTestSaslMechanism}. */
export interface TokenTestSaslMechanismOptions {
  /**
   * The secret manager: the password of the token with these identifier bytes, or `undefined` for
   * an unknown token (the client is refused, as Hadoop's `SecretManager.InvalidToken`).
   */
  retrievePassword(identifier: Buffer): Buffer | undefined;
  /** The QOPs offered, in the server's order. Default: `['auth']` (`hadoop.rpc.protection=authentication`). */
  qop?: readonly SaslQop[];
  /**
   * The user a token authenticates, from its identifier bytes (a delegation token's owner), as
   * the connection's user. Default: none (calls see the connection context's user).
   */
  userOf?(identifier: Buffer): string;
}

const REALM = 'default';

/** A per-connection factory for the test server's `saslMechanism` option. */
export function tokenTestSaslMechanism(
  options: TokenTestSaslMechanismOptions,
): () => HadoopRpcTestSaslMechanism {
  const qops = options.qop ?? ['auth'];
  return () => {
    const nonce = newNonce();
    let layer: SaslSecurityLayer | undefined;
    let user: string | undefined;
    return {
      get authenticatedUser() {
        return user;
      },
      method: 'TOKEN',
      mechanism: 'DIGEST-MD5',
      protocol: '',
      serverId: REALM,
      challenge: formatDigestChallenge(REALM, nonce, qops),
      get securityLayer() {
        return layer;
      },
      evaluate(token: Uint8Array) {
        const d = parseDigestDirectives(token);
        const qop = (d.get('qop') ?? 'auth') as SaslQop;
        if (!qops.includes(qop)) throw new Error(`Unexpected QOP: ${qop}`);
        if (qop === 'auth-conf' && d.get('cipher') !== DIGEST_CIPHER) throw new Error('Unsupported cipher');
        if (d.get('nonce') !== nonce) throw new Error('Nonce mismatch');
        if (d.get('digest-uri') !== `/${REALM}`) throw new Error('Mismatched digest-uri');
        const username = d.get('username') ?? '';
        const password = options.retrievePassword(Buffer.from(username, 'base64'));
        if (password === undefined) throw new Error('token is not known to the secret manager');
        const identifier = Buffer.from(username, 'base64');
        const params: DigestParams = {
          username,
          realm: d.get('realm') ?? '',
          password: password.toString('base64'),
          nonce,
          cnonce: d.get('cnonce') ?? '',
          nc: d.get('nc') ?? '',
          qop,
          digestUri: `/${REALM}`,
        };
        // The message the JDK's DigestMD5Server gives for a wrong password.
        if (!sameDigest(d.get('response') ?? '', digestResponse(params)))
          throw new Error('DIGEST-MD5: digest response format violation. Mismatched response.');
        if (qop !== 'auth') layer = digestSecurityLayer(params, 'server');
        user = options.userOf?.(identifier);
        return { done: true, token: Buffer.from(`rspauth=${digestRspAuth(params)}`, 'utf8') };
      },
    };
  };
}
