// The TOKEN method (Hadoop RPC spec §3.4): DIGEST-MD5 with a delegation token's identifier and
// password, the token chosen as Hadoop's client chooses it (§6.4), and every QOP of
// hadoop.rpc.protection with its security layer.
import { InvalidOptionError } from '@fastpath/core';
import type { Token } from '@fastpath/hadoop-common';
import { HadoopRpcSaslError, HadoopRpcSaslQopError } from './hadoop-rpc-errors.js';
import {
  DIGEST_CIPHER,
  DIGEST_DEFAULT_MAXBUF,
  type DigestParams,
  digestRspAuth,
  formatDigestResponse,
  newNonce,
  parseDigestDirectives,
  sameDigest,
  digestSecurityLayer,
  type SaslQop,
} from './internal/sasl/digest-md5.js';
import type { SaslAuth, SaslMechanism, SaslMechanismSession, SaslServerInfo } from './sasl-mechanism.js';

/** A value of `hadoop.rpc.protection` (spec §3.7). */
export type HadoopRpcProtection = 'authentication' | 'integrity' | 'privacy';

/** `hadoop.rpc.protection` → SASL QOP. */
export const RPC_PROTECTION_QOP: Readonly<Record<HadoopRpcProtection, SaslQop>> = Object.freeze({
  authentication: 'auth',
  integrity: 'auth-int',
  privacy: 'auth-conf',
});

/** Options of {@link createTokenSaslMechanism}. */
export interface TokenSaslMechanismOptions {
  /** The tokens held (e.g. from a Credentials file). Required; may be empty. */
  tokens: readonly Token[];
  /** Only tokens of this kind are used (e.g. `OzoneToken`). Default: any kind. */
  kind?: string;
  /**
   * The protections accepted, in order of preference (`hadoop.rpc.protection`). A server offering
   * none of them is refused with `ERR_HADOOP_RPC_SASL_QOP`. Default: `['authentication']`.
   */
  protection?: readonly HadoopRpcProtection[];
}

/** The receive buffer this client advertises (`maxbuf`), in bytes: the JDK's default. */
const MAX_BUF_BYTES = 65536;

/**
 * The token for a server as Hadoop selects it: the first token (of `kind`, if given) whose service
 * names the address being connected, as `ip:port` (Hadoop's default, `use_ip`) or as the
 * `host:port` given. A service may list several joined with `,` (OM HA, spec §6.4); each is
 * compared exactly, not as a substring as Hadoop's selector does, so `0.0.0.1:9862` never selects
 * a token for `10.0.0.1:9862`.
 */
export function selectToken(
  tokens: readonly Token[],
  server: Pick<SaslServerInfo, 'host' | 'port'> & { remoteIp?: string },
  kind?: string,
): Token | undefined {
  const bracket = (h: string): string => (h.includes(':') ? `[${h}]` : h);
  const keys = new Set([`${server.host}:${server.port}`, `${bracket(server.host)}:${server.port}`]);
  if (server.remoteIp !== undefined) {
    keys.add(`${server.remoteIp}:${server.port}`).add(`${bracket(server.remoteIp)}:${server.port}`);
  }
  return tokens.find(
    (t) => (kind === undefined || t.kind === kind) && t.service.split(',').some((s) => keys.has(s.trim())),
  );
}

const PROTECTIONS = Object.keys(RPC_PROTECTION_QOP) as HadoopRpcProtection[];

/**
 * A TOKEN (DIGEST-MD5) mechanism. It accepts a server's TOKEN offer only when it holds a token for
 * that server, so with KERBEROS configured after it the client falls back to Kerberos otherwise.
 *
 * @example
 * ```ts
 * const client = createHadoopRpcClient({
 *   authProtocol: 'sasl',
 *   saslMechanisms: [createTokenSaslMechanism({ tokens, protection: ['privacy'] })],
 * });
 * ```
 */
export function createTokenSaslMechanism(options: TokenSaslMechanismOptions): SaslMechanism {
  if (typeof options !== 'object' || options === null || !Array.isArray(options.tokens)) {
    throw new InvalidOptionError('tokens', 'expected an array of Token');
  }
  const protection = options.protection ?? ['authentication'];
  if (protection.length === 0 || protection.some((p) => !PROTECTIONS.includes(p))) {
    throw new InvalidOptionError('protection', `expected a non-empty list of ${PROTECTIONS.join(', ')}`);
  }
  const tokens: readonly Token[] = [...(options.tokens as readonly Token[])];
  const wanted = protection.map((p) => RPC_PROTECTION_QOP[p]);
  const kind = options.kind;
  return Object.freeze({
    method: 'TOKEN',
    mechanism: 'DIGEST-MD5',
    accepts: (_auth: SaslAuth, server: SaslServerInfo) => selectToken(tokens, server, kind) !== undefined,
    start: (auth: SaslAuth, server: SaslServerInfo) => {
      const token = selectToken(tokens, server, kind) as Token;
      return new DigestSession(auth, server, token, wanted);
    },
  });
}

class DigestSession implements SaslMechanismSession {
  readonly completesWithoutReply = false;
  readonly contextUser = {};
  #params: DigestParams | undefined;
  /** The server's `maxbuf` from its challenge. */
  #serverMaxBuf = DIGEST_DEFAULT_MAXBUF;
  #complete = false;
  readonly #auth: SaslAuth;
  readonly #server: SaslServerInfo;
  readonly #token: Token;
  readonly #wanted: readonly SaslQop[];

  constructor(auth: SaslAuth, server: SaslServerInfo, token: Token, wanted: readonly SaslQop[]) {
    this.#auth = auth;
    this.#server = server;
    this.#token = token;
    this.#wanted = wanted;
  }

  get complete(): boolean {
    return this.#complete;
  }

  #fail(message: string, cause?: unknown): never {
    throw new HadoopRpcSaslError(
      this.#server.address,
      `TOKEN (DIGEST-MD5): ${message}`,
      ['TOKEN/DIGEST-MD5'],
      cause,
    );
  }

  initialResponse(): Promise<Uint8Array | undefined> {
    // Hadoop's server piggy-backs the challenge on NEGOTIATE; without one there is nothing to answer.
    if (this.#auth.challenge === undefined) return Promise.resolve(new Uint8Array(0));
    return Promise.resolve(this.#respond(this.#auth.challenge));
  }

  evaluateChallenge(challenge: Uint8Array): Promise<Uint8Array | undefined> {
    if (this.#params === undefined) return Promise.resolve(this.#respond(challenge));
    return Promise.resolve(this.#checkRspAuth(challenge));
  }

  #respond(challenge: Uint8Array): Uint8Array {
    let d: Map<string, string>;
    try {
      d = parseDigestDirectives(challenge);
    } catch (error) {
      this.#fail('the server sent a challenge that does not parse', error);
    }
    const nonce = d.get('nonce');
    if (!nonce) this.#fail('the server challenge has no nonce');
    if ((d.get('algorithm') ?? '') !== 'md5-sess')
      this.#fail('the server challenge is not algorithm=md5-sess');
    const offered = (d.get('qop') ?? 'auth').split(',').map((q) => q.trim());
    const qop = this.#wanted.find((q) => offered.includes(q));
    if (qop === undefined) throw new HadoopRpcSaslQopError(this.#server.address, offered, this.#wanted);
    const maxbuf = Number(d.get('maxbuf') ?? DIGEST_DEFAULT_MAXBUF);
    // RFC 2831 wants more than 16 bytes and at most 2^24 - 1; one too small to hold a wrapped
    // message's own bytes (or not a number) leaves the default.
    if (Number.isSafeInteger(maxbuf) && maxbuf > 64 && maxbuf <= 0xffffff) this.#serverMaxBuf = maxbuf;
    let cipher: string | undefined;
    if (qop === 'auth-conf') {
      const ciphers = (d.get('cipher') ?? '').split(',').map((c) => c.trim());
      if (!ciphers.includes(DIGEST_CIPHER)) {
        this.#fail(
          `the server offers ciphers [${ciphers.join(', ')}] and this client has only ${DIGEST_CIPHER}`,
        );
      }
      cipher = DIGEST_CIPHER;
    }
    this.#params = {
      // Hadoop's SaslRpcServer#encodeIdentifier / #encodePassword: standard base64 with padding.
      username: this.#token.identifier.toString('base64'),
      password: this.#token.password.unwrap().toString('base64'),
      realm: d.get('realm') ?? '',
      nonce,
      cnonce: newNonce(),
      nc: '00000001',
      qop,
      digestUri: `${this.#auth.protocol ?? ''}/${this.#auth.serverId ?? ''}`,
    };
    return formatDigestResponse(this.#params, cipher, MAX_BUF_BYTES);
  }

  #checkRspAuth(token: Uint8Array): undefined {
    const params = this.#params as DigestParams;
    let rspauth: string | undefined;
    try {
      rspauth = parseDigestDirectives(token).get('rspauth');
    } catch (error) {
      this.#fail('the server sent a final message that does not parse', error);
    }
    // Hadoop sets javax.security.sasl.server.authentication: the server must prove it knows the password.
    if (rspauth === undefined || !sameDigest(rspauth, digestRspAuth(params))) {
      this.#fail('the server did not prove it knows the token password (bad rspauth)');
    }
    this.#complete = true;
    return undefined;
  }

  securityLayer() {
    const params = this.#params;
    if (params === undefined || params.qop === 'auth') return undefined;
    return digestSecurityLayer(params, 'client', this.#serverMaxBuf);
  }
}
