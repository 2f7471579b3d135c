import { systemClock, Redacted, type Clock } from '@fastpath/core';
import { generateSecureRandom } from '@fastpath/secure-random';

/**
 * Where cookie secrets come from (Hadoop's `SignerSecretProvider`): the one that signs now, and
 * every one that verifies now (the signing one first). Both are answered at once, from memory:
 * a provider that shares its secrets through ZooKeeper keeps them current in the background.
 */
export interface SignerSecretSource {
  /** The secret that signs now. */
  current(): Redacted<Buffer>;
  /** The secrets that verify now, the current one first. */
  all(): readonly Redacted<Buffer>[];
}

/**
 * The secrets that sign and verify `hadoop.auth` cookies, as Hadoop's signer secret providers
 * keep them: the current secret signs; the current and the previous one verify. A configured
 * secret (`string`, `file`) never changes; the `random` provider makes a new 32-byte secret
 * every rollover interval (Hadoop rolls at `token.validity`), so a cookie stays verifiable for
 * one more interval after its secret was replaced, and a server's cookies die with it.
 *
 * @example
 * ```ts
 * const secrets = SignerSecrets.random({ rolloverMs: 36_000_000 });
 * secrets.current(); // signs
 * secrets.all();     // verify: [current, previous]
 * ```
 */
export class SignerSecrets implements SignerSecretSource {
  readonly #rolloverMs: number | undefined;
  readonly #clock: Clock;
  #current: Redacted<Buffer>;
  #previous: Redacted<Buffer> | undefined;
  #nextRollMs: number;

  private constructor(first: Redacted<Buffer>, rolloverMs: number | undefined, clock: Clock) {
    this.#current = first;
    this.#rolloverMs = rolloverMs;
    this.#clock = clock;
    this.#nextRollMs = rolloverMs === undefined ? Infinity : clock.now() + rolloverMs;
  }

  /** One configured secret, for ever (`signer.secret.provider` `string` or `file`). */
  static fixed(secret: Redacted<Buffer>): SignerSecrets {
    return new SignerSecrets(secret, undefined, systemClock);
  }

  /** Random secrets replaced every `rolloverMs` (`signer.secret.provider=random`). */
  static random(options: { rolloverMs: number; clock?: Clock | undefined }): SignerSecrets {
    return new SignerSecrets(randomSecret(), options.rolloverMs, options.clock ?? systemClock);
  }

  /** The secret that signs now. */
  current(): Redacted<Buffer> {
    this.#roll();
    return this.#current;
  }

  /** The secrets that verify now, the current one first. */
  all(): readonly Redacted<Buffer>[] {
    this.#roll();
    return this.#previous === undefined ? [this.#current] : [this.#current, this.#previous];
  }

  // Rolled when asked rather than on a timer: no timer to stop, and a clock in tests decides.
  #roll(): void {
    const now = this.#clock.now();
    if (now < this.#nextRollMs || this.#rolloverMs === undefined) return;
    const missed = Math.floor((now - this.#nextRollMs) / this.#rolloverMs);
    // Two intervals or more without a request: the previous secret is as stale as the current.
    this.#previous = missed >= 1 ? undefined : this.#current;
    this.#current = randomSecret();
    this.#nextRollMs += (missed + 1) * this.#rolloverMs;
  }
}

/** A new 32-byte secret (the length of Hadoop's random and ZooKeeper providers' secrets). */
export function randomSecret(): Redacted<Buffer> {
  return new Redacted(generateSecureRandom(32));
}
