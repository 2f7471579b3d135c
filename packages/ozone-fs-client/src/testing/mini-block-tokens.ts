// Block tokens for the embedded cluster, as a secure Ozone cluster with `hdds.block.token.enabled`
// uses them: the OM signs one per block location (a BlockTokenSecretProto identifier, kind
// HDDS_BLOCK_TOKEN, service "conID: <c> locID: <l>", HMAC-SHA256 under a key the datanodes
// share), and a datanode refuses a command on a block without a valid token for that block and
// mode with BLOCK_TOKEN_VERIFICATION_FAILED.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Token } from '@fastpath/hadoop-common';
import { MiniClusterError } from '../ozone-errors.js';
import { hdds, uint64, type hadoop } from '../internal/proto/wire.js';

/** The kind of a block token. */
export const BLOCK_TOKEN_KIND = 'HDDS_BLOCK_TOKEN';

/** What a command needs a token for. */
export type BlockAccessMode = 'READ' | 'WRITE';

/** `ContainerBlockID.toString()`, a block token's service and identifier `blockId`. */
export function blockTokenService(containerId: bigint, localId: bigint): string {
  return `conID: ${containerId} locID: ${localId}`;
}

/** The embedded cluster's block token secret: issued by its OM, checked by its datanodes. */
export class MiniBlockTokens {
  readonly #key = randomBytes(32);
  readonly #lifetimeMs: number;

  /** @param lifetimeMs how long a token is valid from issue (`hdds.block.token.expiry.time`), in ms; default one day. */
  constructor(lifetimeMs = 24 * 3600_000) {
    if (!Number.isSafeInteger(lifetimeMs) || lifetimeMs < 1)
      throw new MiniClusterError(`blockTokenLifetimeMs must be a positive integer, got ${lifetimeMs}`);
    this.#lifetimeMs = lifetimeMs;
  }

  /** A token for `owner` on one block, for reading and writing. */
  issue(containerId: bigint, localId: bigint, owner: string): hadoop.common.ITokenProto {
    const service = blockTokenService(containerId, localId);
    const identifier = hdds.BlockTokenSecretProto.encode({
      ownerId: owner,
      blockId: service,
      expiryDate: uint64(Date.now() + this.#lifetimeMs),
      modes: [
        hdds.BlockTokenSecretProto.AccessModeProto.READ,
        hdds.BlockTokenSecretProto.AccessModeProto.WRITE,
      ],
      maxLength: uint64(0),
    }).finish();
    return { identifier, password: this.#sign(identifier), kind: BLOCK_TOKEN_KIND, service };
  }

  /** Why `encoded` does not allow `mode` on the block, or `undefined` when it does. */
  refusal(encoded: string, containerId: bigint, localId: bigint, mode: BlockAccessMode): string | undefined {
    // Ozone's TokenVerifier: an empty token is refused outright.
    if (encoded === '') return 'Block token is missing';
    let token: Token;
    let id: hadoop.hdds.BlockTokenSecretProto;
    try {
      token = Token.fromUrlString(encoded);
      id = hdds.BlockTokenSecretProto.decode(token.identifier);
    } catch (error) {
      return `Block token does not decode: ${(error as Error).message}`;
    }
    const expected = this.#sign(token.identifier);
    const given = token.password.unwrap();
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return 'Block token verification failed: the password does not match';
    }
    const service = blockTokenService(containerId, localId);
    if (id.blockId !== service) return `Block token for ${id.blockId} is not for ${service}`;
    if (Number(id.expiryDate) < Date.now()) return `Block token expired at ${String(id.expiryDate)}`;
    const wanted = hdds.BlockTokenSecretProto.AccessModeProto[mode];
    if (!id.modes.includes(wanted)) return `Block token does not allow ${mode}`;
    return undefined;
  }

  #sign(identifier: Uint8Array): Buffer {
    return createHmac('sha256', this.#key).update(identifier).digest();
  }
}
