// The typed face of the optional GSS-API addon (native/gss/gss.c): one security context per
// SASL GSSAPI exchange, established in steps on libuv's thread pool (a step may ask the KDC for a
// service ticket), then wrapping and unwrapping synchronously (local crypto only), so the
// connection's security layer stays synchronous and in order.
import { addonPath, loadAddon } from './gss-addon.cjs';

/** GSS request flags (RFC 2744), as Hadoop's client asks for them. */
export const GSS_FLAGS = Object.freeze({
  MUTUAL: 2,
  REPLAY: 4,
  SEQUENCE: 8,
  CONF: 16,
  INTEG: 32,
});

interface StepResult {
  token: Uint8Array;
  complete: boolean;
  flags: number;
  initiator?: string;
}

/** Whose tickets an initiator uses; all absent: the default credentials cache's (`KRB5CCNAME`). */
export interface GssLogin {
  /** The client principal (`alice@EXAMPLE.COM`). */
  principal?: string;
  /** A client keytab: MIT gets a ticket from it whenever the cache holds none that is valid. */
  keytab?: string;
  /** The credentials cache to use (`MEMORY:name`, `FILE:/path`). */
  ccache?: string;
}

interface GssAddon {
  initiate(target: string, flags: number, login: GssLogin): object;
  accept(login: { keytab?: string }): object;
  step(handle: object, token: Uint8Array | null, callback: (err: Error | null, r?: StepResult) => void): void;
  wrap(handle: object, bytes: Uint8Array, confidential: boolean): Uint8Array;
  unwrap(handle: object, bytes: Uint8Array): { data: Uint8Array; confidential: boolean };
}

let addon: GssAddon | undefined;
let loadProblem: string | undefined;

/** The addon, or why it is not there (a text for the caller's typed error). */
export function gssAddon(): GssAddon | string {
  if (addon !== undefined) return addon;
  if (loadProblem !== undefined) return loadProblem;
  try {
    addon = loadAddon() as GssAddon;
    return addon;
  } catch (error) {
    loadProblem = `the GSS-API addon of @fastpath/hadoop-rpc is not built (${addonPath}: ${
      (error as Error).message.split('\n')[0] ?? ''
    }); install libkrb5-dev and run the package's build:native script`;
    return loadProblem;
  }
}

/** One GSS security context (initiator or acceptor). */
export class GssContext {
  readonly #addon: GssAddon;
  readonly #handle: object;
  #complete = false;
  #flags = 0;
  #initiator: string | undefined;

  private constructor(gss: GssAddon, handle: object) {
    this.#addon = gss;
    this.#handle = handle;
  }

  /** An initiator for the host-based service `target` (`om@host1.example.com`), raw Kerberos 5. */
  static initiate(gss: GssAddon, target: string, flags: number, login: GssLogin = {}): GssContext {
    return new GssContext(gss, gss.initiate(target, flags, login));
  }

  /** An acceptor for any key of `keytab` (default: the keytab libkrb5 is pointed at, `KRB5_KTNAME`). */
  static accept(gss: GssAddon, keytab?: string): GssContext {
    return new GssContext(gss, gss.accept(keytab === undefined ? {} : { keytab }));
  }

  get complete(): boolean {
    return this.#complete;
  }

  /** The flags granted (e.g. whether mutual authentication took place), once complete. */
  get flags(): number {
    return this.#flags;
  }

  /** The initiator's principal (the client's, in both roles), once complete. */
  get initiator(): string | undefined {
    return this.#initiator;
  }

  /** One establishment step: the initiator's first with `null`; resolves with the token to send (may be empty). */
  step(token: Uint8Array | null): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      this.#addon.step(this.#handle, token, (err, result) => {
        if (err !== null || result === undefined) {
          reject(err ?? new Error('GSS step failed'));
          return;
        }
        this.#complete = result.complete;
        this.#flags = result.flags;
        if (result.initiator !== undefined) this.#initiator = result.initiator;
        resolve(result.token);
      });
    });
  }

  wrap(bytes: Uint8Array, confidential: boolean): Uint8Array {
    return this.#addon.wrap(this.#handle, bytes, confidential);
  }

  unwrap(bytes: Uint8Array): { data: Uint8Array; confidential: boolean } {
    return this.#addon.unwrap(this.#handle, bytes);
  }
}
