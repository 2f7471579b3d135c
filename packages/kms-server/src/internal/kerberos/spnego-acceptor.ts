import type { KerberosSettings } from './kerberos-settings.js';
import {
  MalformedKerberosNameError,
  NoMatchingKerberosRuleError,
  type KerberosModule,
  type KerberosNameRules,
} from '@fastpath/hadoop-common';
import { GssTokenError, gssTokenServerName } from './gss-token-server-name.js';

/** A client authenticated by SPNEGO. */
export interface SpnegoIdentity {
  /** The full client principal (`client/host@EXAMPLE.COM`). */
  readonly principal: string;
  /** Its short name under the name rules (`client`). */
  readonly shortName: string;
  /** The base64 mutual-authentication reply (AP-REP), for `WWW-Authenticate: Negotiate <…>`. */
  readonly replyToken: string | undefined;
}

/** Why a token was refused: Hadoop's filter answers these with 403 and the message as reason. */
export class SpnegoRefusal extends Error {}

/** Base64 as commons-codec reads it leniently: characters outside either alphabet are skipped. */
function decodeLenient(text: string): Buffer {
  return Buffer.from(text.replace(/[^A-Za-z0-9+/\-_]/g, ''), 'base64');
}

/**
 * Accepts a client's `Authorization: Negotiate <token>` as Hadoop's Kerberos handler does: the
 * target principal is read from the token first and must be an `HTTP/` principal this server
 * serves (the configured one, or with `*` any `HTTP/` principal of its keytab), then GSS accepts
 * the raw Kerberos or SPNEGO-wrapped token with the keytab's keys (libkrb5 checks the ticket's
 * times and replays), and the client principal is mapped to its short name. The GSS step runs on
 * libuv's thread pool (the `kerberos` package's async workers), never on the event loop.
 */
export class SpnegoAcceptor {
  readonly #kerberos: KerberosModule;
  readonly #accepted: ReadonlySet<string>;
  readonly #rules: KerberosNameRules;

  constructor(kerberos: KerberosModule, settings: KerberosSettings, rules: KerberosNameRules) {
    this.#kerberos = kerberos;
    this.#accepted = new Set(settings.acceptedPrincipals);
    this.#rules = rules;
  }

  /** Accepts a base64 token; rejects with {@link SpnegoRefusal} for anything it does not take. */
  async accept(base64Token: string): Promise<SpnegoIdentity> {
    const token = decodeLenient(base64Token);
    let target: string;
    try {
      target = gssTokenServerName(token);
    } catch (error) {
      if (error instanceof GssTokenError) throw new SpnegoRefusal(error.message);
      throw error;
    }
    // Hadoop's texts, as its KMS answers them (checked against Hadoop 3.4.2): the first is its
    // handler's IllegalArgumentException (no space before "decoded" there either); the second
    // is what Java's GSS says when the keytab holds no key of the ticket's service.
    if (!target.startsWith('HTTP/')) {
      throw new SpnegoRefusal(
        `java.lang.IllegalArgumentException: Invalid server principal ${target}decoded from client request`,
      );
    }
    if (!this.#accepted.has(target)) {
      throw new SpnegoRefusal(
        'GSSException: No valid credentials provided (Mechanism level: Failed to find any Kerberos credentials)',
      );
    }
    let principal: string;
    let response: string;
    try {
      // An empty service acquires no acceptor credential: any key of the keytab may decrypt,
      // and the check above has already limited which principals that can be.
      const context = await this.#kerberos.initializeServer('');
      await context.step(token.toString('base64'));
      if (!context.contextComplete) throw new SpnegoRefusal('The GSS context was not established');
      principal = context.username;
      response = context.response;
    } catch (error) {
      if (error instanceof SpnegoRefusal) throw error;
      throw new SpnegoRefusal(`GSSException: ${gssMessage(error)}`);
    }
    let shortName: string;
    try {
      shortName = this.#rules.shortName(principal);
    } catch (error) {
      if (error instanceof NoMatchingKerberosRuleError || error instanceof MalformedKerberosNameError) {
        throw new SpnegoRefusal(error.message);
      }
      throw error;
    }
    return { principal, shortName, replyToken: response === '' ? undefined : response };
  }
}

/** The first line of a GSS failure; it names what failed, never a key. */
function gssMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? 'failure';
}
