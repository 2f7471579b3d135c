import { InvalidTokenError } from '../token-errors.js';
import { DelegationTokenIdentifier, Token, WireFormatError } from '@fastpath/hadoop-common';

/** A token and its decoded identifier. */
export interface DecodedToken {
  readonly token: Token;
  readonly identifier: DelegationTokenIdentifier;
}

/** How many decoded token strings a manager remembers (a few MB at most). */
const DECODED_STRINGS_MAX = 4096;

/**
 * Reads tokens of one kind, remembering decoded strings. Clients send the same token string on
 * every request; decoding it (URL-safe base64, the identifier's varints, and re-encoding its
 * canonical bytes) costs more than the rest of a cached verification. Token and identifier are
 * immutable, and only well-formed tokens of this kind get in, so a hit answers exactly as a decode.
 */
export class TokenDecoder {
  readonly #kind: string;
  readonly #decodedStrings = new Map<string, DecodedToken>();

  constructor(kind: string) {
    this.#kind = kind;
  }

  /** Reads the identifier of a token of this kind (`ERR_INVALID_TOKEN` if it cannot). */
  decode(token: Token | string): DecodedToken {
    if (typeof token === 'string') {
      const known = this.#decodedStrings.get(token);
      if (known !== undefined) return known;
    }
    try {
      const t = typeof token === 'string' ? Token.fromUrlString(token) : token;
      if (!(t instanceof Token)) throw new WireFormatError('not a token');
      if (t.kind !== this.#kind) {
        throw new WireFormatError(`token kind "${t.kind}" is not "${this.#kind}"`);
      }
      const decoded = Object.freeze({
        token: t,
        identifier: DelegationTokenIdentifier.decode(this.#kind, t.identifier),
      });
      if (typeof token === 'string') {
        // Bounded: when full, the oldest entry goes (insertion order), so a flood of distinct
        // strings costs a decode each, as without the cache, and never grows memory.
        if (this.#decodedStrings.size >= DECODED_STRINGS_MAX) {
          this.#decodedStrings.delete(this.#decodedStrings.keys().next().value as string);
        }
        this.#decodedStrings.set(token, decoded);
      }
      return decoded;
    } catch (error) {
      if (error instanceof WireFormatError) {
        throw new InvalidTokenError('malformed', `malformed delegation token: ${error.message}`, {
          cause: error,
        });
      }
      throw error;
    }
  }
}
