import { KmsRequestError } from '../../kms-errors.js';
import { shortUserName, type KmsUser } from '../acl/kms-user.js';
import { NOT_A_TOKEN, isTokenRefusal, javaExceptionText, type TokenService } from '../auth/token-service.js';
import { isTokenUrlString } from './kms-input.js';

/** The delegation-token operations, by their `op=` names. */
export type DelegationTokenOperation =
  'GETDELEGATIONTOKEN' | 'RENEWDELEGATIONTOKEN' | 'CANCELDELEGATIONTOKEN';

/**
 * Hadoop's delegation-token operations (`DelegationTokenAuthenticationHandler`) on the token
 * service: who may get, renew and cancel a token, and the errors Hadoop raises, as typed errors
 * (`ERR_KMS_BAD_REQUEST` for a missing token, `ERR_KMS_AUTHENTICATION_FAILED` for a refusal,
 * `ERR_KMS_TOKEN_CANCEL_FAILED` for a failed cancel). Independent of HTTP: the caller has
 * authenticated the user and the transport decides how a failure is answered.
 *
 * @example
 * ```ts
 * const urlString = await tokens.getDelegationToken(alice, { renewer: 'yarn', service: undefined });
 * await tokens.renewDelegationToken(yarn, urlString); // the new expiry, ms
 * ```
 */
export class TokenOperations {
  readonly #tokens: TokenService;

  constructor(tokens: TokenService) {
    this.#tokens = tokens;
  }

  /** `GETDELEGATIONTOKEN`: a token of `owner`; the renewer defaults to the owner's short name. */
  getDelegationToken(
    owner: KmsUser,
    request: { renewer: string | undefined; service: string | undefined },
  ): Promise<string> {
    return refusalsAsAuthenticationFailure(() =>
      this.#tokens.create({
        owner: owner.name,
        renewer: request.renewer ?? owner.shortName,
        realUser: owner.realUser?.name ?? '',
        service: request.service,
      }),
    );
  }

  /** `RENEWDELEGATIONTOKEN` by `renewer`: the token's new expiry (epoch ms). */
  renewDelegationToken(renewer: KmsUser, token: string | undefined): Promise<number> {
    const urlString = tokenParameter('RENEWDELEGATIONTOKEN', token);
    return refusalsAsAuthenticationFailure(() => this.#tokens.renew(urlString, renewer.shortName));
  }

  /**
   * `CANCELDELEGATIONTOKEN`. Without an authenticated `canceller` the cancel proceeds as the
   * token's owner (Hadoop's rule: a cancel needs no authentication). Any refusal is Hadoop's one
   * answer, "Invalid delegation token, cannot cancel".
   */
  async cancelDelegationToken(canceller: KmsUser | undefined, token: string | undefined): Promise<void> {
    const urlString = tokenParameter('CANCELDELEGATIONTOKEN', token);
    try {
      const name = canceller?.name ?? shortUserName((await this.#tokens.verify(urlString)).owner);
      await this.#tokens.cancel(urlString, name);
    } catch (error) {
      if (!isTokenRefusal(error)) throw error;
      throw cannotCancel(error);
    }
  }
}

function cannotCancel(cause?: unknown): KmsRequestError {
  return new KmsRequestError(
    'ERR_KMS_TOKEN_CANCEL_FAILED',
    'Invalid delegation token, cannot cancel',
    cause === undefined ? {} : { cause },
  );
}

/** The `token` parameter, checked before the token store is asked. */
function tokenParameter(op: DelegationTokenOperation, token: string | undefined): string {
  if (token === undefined) {
    throw new KmsRequestError('ERR_KMS_BAD_REQUEST', `Operation [${op}] requires the parameter [token]`);
  }
  if (!isTokenUrlString(token)) {
    throw op === 'CANCELDELEGATIONTOKEN'
      ? cannotCancel()
      : new KmsRequestError('ERR_KMS_AUTHENTICATION_FAILED', NOT_A_TOKEN);
  }
  return token;
}

/** Hadoop rethrows the token manager's refusals as an AuthenticationException with their text. */
async function refusalsAsAuthenticationFailure<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (!isTokenRefusal(error)) throw error;
    throw new KmsRequestError('ERR_KMS_AUTHENTICATION_FAILED', javaExceptionText(error), { cause: error });
  }
}
