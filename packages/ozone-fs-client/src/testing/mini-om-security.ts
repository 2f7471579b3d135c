// The embedded OM's security, as a secure Ozone OM behaves on its Hadoop RPC port: SIMPLE refused;
// TOKEN (DIGEST-MD5 with its own delegation tokens) offered first, then KERBEROS (the OM's
// principal and keytab); and the delegation token calls with Ozone's rules: a token is issued and
// renewed only over a Kerberos-authenticated connection, renewed only by its renewer (short
// name), never past its maximum date, cancelled by its owner or renewer; a cancelled or expired
// token stops authenticating. Tokens are OMTokenProto identifiers signed with HMAC-SHA256.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { KerberosNameRules } from '@fastpath/hadoop-common';
import type { HadoopRpcProtection } from '@fastpath/hadoop-rpc';
import {
  type HadoopRpcCallContext,
  type HadoopRpcTestSaslMechanism,
  kerberosTestSaslMechanism,
  tokenTestSaslMechanism,
} from '@fastpath/hadoop-rpc/testing';
import { OZONE_TOKEN_KIND } from '../ozone-token-identifier.js';
import { om, uint64, type hadoop } from '../internal/proto/wire.js';

/** How the embedded OM is secured (the `security` option of the mini cluster). */
export interface MiniOmSecurityOptions {
  /** The OM's Kerberos principal (`om/localhost@EXAMPLE.COM`) and a keytab holding its key. */
  kerberos: { principal: string; keytab: string };
  /** The protections offered (`hadoop.rpc.protection`), in order. Default: `['authentication']`. */
  protection?: readonly HadoopRpcProtection[];
  /** How long a token lives before it must be renewed, in ms. Default: one day, as Ozone's. */
  tokenRenewIntervalMs?: number;
  /** Past this (from issue) a token cannot be renewed, in ms. Default: seven days, as Ozone's. */
  tokenMaxLifetimeMs?: number;
  /**
   * Block tokens (`hdds.block.token.enabled`): the OM hands one out with every block location and
   * the datanodes refuse a block command without a valid one (BLOCK_TOKEN_VERIFICATION_FAILED).
   * Default: false, as Ozone's.
   */
  blockTokens?: boolean;
  /**
   * How long a block token lives from the moment the OM hands it out, in ms (Ozone's
   * `hdds.block.token.expiry.time`); past it the datanodes refuse it. Default: one day, as Ozone's.
   */
  blockTokenLifetimeMs?: number;
}

const QOP: Readonly<Record<HadoopRpcProtection, 'auth' | 'auth-int' | 'auth-conf'>> = {
  authentication: 'auth',
  integrity: 'auth-int',
  privacy: 'auth-conf',
};

interface Issued {
  expiry: number;
  readonly maxDate: number;
  readonly owner: string;
  readonly renewer: string;
}

type OmStatusName = keyof typeof om.Status;

/** An OM answer other than OK, for a token call. */
class TokenCallRefused extends Error {
  constructor(
    readonly status: OmStatusName,
    message: string,
  ) {
    super(message);
  }
}

/** The embedded OM's delegation token secret manager and its SASL mechanisms. */
export class MiniOmSecurity {
  readonly #key = randomBytes(32);
  readonly #issued = new Map<number, Issued>();
  readonly #options: MiniOmSecurityOptions;
  readonly #names = new KerberosNameRules('DEFAULT');
  #sequence = 0;

  constructor(options: MiniOmSecurityOptions) {
    this.#options = options;
  }

  /** TOKEN then KERBEROS, as a secure OM offers them. */
  saslMechanisms(): Array<() => HadoopRpcTestSaslMechanism> {
    const qop = (this.#options.protection ?? ['authentication']).map((p) => QOP[p]);
    return [
      tokenTestSaslMechanism({
        retrievePassword: (identifier) => this.#password(identifier),
        userOf: (identifier) => om.OMTokenProto.decode(identifier).owner,
        qop,
      }),
      kerberosTestSaslMechanism({ ...this.#options.kerberos, qop }),
    ];
  }

  /** Answers a GetDelegationToken, RenewDelegationToken or CancelDelegationToken request. */
  answer(request: hadoop.ozone.OMRequest, context: HadoopRpcCallContext, service: string): Uint8Array {
    const cmdType = request.cmdType;
    try {
      return om.OMResponse.encode({
        cmdType,
        status: om.Status.OK,
        success: true,
        ...this.#run(request, context, service),
      }).finish();
    } catch (error) {
      if (!(error instanceof TokenCallRefused)) throw error;
      return om.OMResponse.encode({
        cmdType,
        status: om.Status[error.status],
        success: false,
        message: error.message,
      }).finish();
    }
  }

  #run(
    request: hadoop.ozone.OMRequest,
    context: HadoopRpcCallContext,
    service: string,
  ): Partial<hadoop.ozone.IOMResponse> {
    const user = context.user ?? '';
    const kerberos = context.authMethod === 'KERBEROS';
    if (request.cmdType === om.Type.GetDelegationToken) {
      // Ozone's words (OzoneManager#getDelegationToken).
      if (!kerberos) {
        throw new TokenCallRefused(
          'INVALID_AUTH_METHOD',
          'Delegation Token can be issued only with kerberos or web authentication',
        );
      }
      const renewer = request.getDelegationTokenRequest?.renewer ?? '';
      return { getDelegationTokenResponse: { response: { token: this.#issue(user, renewer, service) } } };
    }
    const token = (request.renewDelegationTokenRequest ?? request.cancelDelegationTokenRequest)?.token;
    const id = token === undefined || token === null ? undefined : this.#verified(token);
    if (id === undefined) throw new TokenCallRefused('TOKEN_ERROR_OTHER', 'the token is not valid');
    const issued = this.#issued.get(id.sequenceNumber) as Issued;
    if (request.cmdType === om.Type.RenewDelegationToken) {
      if (!kerberos) {
        throw new TokenCallRefused(
          'INVALID_AUTH_METHOD',
          'Delegation Token can be renewed only with kerberos or web authentication',
        );
      }
      if (issued.renewer === '' || issued.renewer !== this.#short(user)) {
        throw new TokenCallRefused(
          'TOKEN_ERROR_OTHER',
          `${user} tries to renew a token with renewer ${issued.renewer}`,
        );
      }
      const now = Date.now();
      if (now > issued.maxDate)
        throw new TokenCallRefused('TOKEN_EXPIRED', 'the token is past its maximum date');
      issued.expiry = Math.min(issued.maxDate, now + this.#renewInterval);
      return { renewDelegationTokenResponse: { response: { newExpiryTime: uint64(issued.expiry) } } };
    }
    if (user !== issued.owner && this.#short(user) !== issued.renewer) {
      throw new TokenCallRefused('TOKEN_ERROR_OTHER', `${user} is not authorized to cancel the token`);
    }
    this.#issued.delete(id.sequenceNumber);
    return { cancelDelegationTokenResponse: { response: {} } };
  }

  get #renewInterval(): number {
    return this.#options.tokenRenewIntervalMs ?? 24 * 3600_000;
  }

  #short(user: string): string {
    try {
      return this.#names.shortName(user);
    } catch {
      return user;
    }
  }

  #issue(owner: string, renewer: string, service: string): hadoop.common.ITokenProto {
    const now = Date.now();
    const sequenceNumber = ++this.#sequence;
    const maxDate = now + (this.#options.tokenMaxLifetimeMs ?? 7 * 24 * 3600_000);
    this.#issued.set(sequenceNumber, { expiry: now + this.#renewInterval, maxDate, owner, renewer });
    const identifier = om.OMTokenProto.encode({
      type: om.OMTokenProto.Type.DELEGATION_TOKEN,
      owner,
      renewer,
      realUser: '',
      issueDate: uint64(now),
      maxDate: uint64(maxDate),
      sequenceNumber,
      masterKeyId: 1,
      secretKeyId: 'mini-om-key',
    }).finish();
    return { identifier, password: this.#sign(identifier), kind: OZONE_TOKEN_KIND, service };
  }

  #sign(identifier: Uint8Array): Buffer {
    return createHmac('sha256', this.#key).update(identifier).digest();
  }

  /** The identifier of a token this OM issued, not cancelled, not expired, with a right password. */
  #verified(token: hadoop.common.ITokenProto): hadoop.ozone.OMTokenProto | undefined {
    const identifier = token.identifier ?? new Uint8Array(0);
    const password = this.#password(Buffer.from(identifier));
    if (password === undefined) return undefined;
    const given = Buffer.from(token.password ?? new Uint8Array(0));
    if (given.length !== password.length || !timingSafeEqual(given, password)) return undefined;
    return om.OMTokenProto.decode(identifier);
  }

  /** The secret manager's lookup: the password of a live token, else `undefined`. */
  #password(identifier: Buffer): Buffer | undefined {
    let id: hadoop.ozone.OMTokenProto;
    try {
      id = om.OMTokenProto.decode(identifier);
    } catch {
      return undefined;
    }
    const issued = this.#issued.get(id.sequenceNumber);
    if (issued === undefined || issued.expiry < Date.now()) return undefined;
    const password = this.#sign(identifier);
    // The identifier must be the one issued under that number, not another signed one.
    return issued.owner === id.owner ? password : undefined;
  }
}
