import { checkInteger, checkNonEmptyString, InvalidOptionError, Redacted } from '@fastpath/core';
import { Pool } from 'undici';
import type { EncryptedKeyVersion } from './encrypted-key-version.js';
import { encodeBase64Url } from './internal/base64.js';
import {
  array,
  encryptedKeyVersionJson,
  parseEncryptedKeyVersion,
  parseKeyVersion,
  parseMetadata,
  parseRenewAnswer,
  parseTokenAnswer,
  requireKeyVersion,
  ShapeError,
} from './internal/kms-json.js';
import { errorFromHttpResponse, errorFromTransport } from './internal/response-errors.js';
import type { CallContext } from './internal/response-errors.js';
import { parseKmsUrl } from './internal/parse-kms-url.js';
import {
  SpnegoLoginFailure,
  SpnegoSession,
  type KerberosLoginOptions,
  type RawExchange,
} from './internal/spnego-login.js';
import type { KeyMetadata } from './key-metadata.js';
import type { CreatedKeyVersion, KeyVersion } from './key-version.js';
import { KmsDelegationToken } from './kms-delegation-token.js';
import {
  KmsAbortedError,
  KmsBadResponseError,
  KmsClientClosedError,
  KmsError,
  KmsInvalidArgumentError,
  KmsKerberosLoginError,
  KmsMalformedTokenError,
} from './kms-errors.js';

export type { KerberosLoginOptions } from './internal/spnego-login.js';

/** Who the calls are made as. */
export interface KmsAuth {
  /**
   * User name for simple authentication (`user.name=` on every call). Needed to get or renew a
   * delegation token. Default: none.
   */
  user?: string;
  /**
   * A delegation token (object or URL string) sent as `X-Hadoop-Delegation-Token` on key calls; it
   * takes precedence over `user` there. Default: none.
   */
  delegationToken?: KmsDelegationToken | string | Redacted<string>;
  /** Act on behalf of this user (`doas=`); the server's proxy-user rules must allow it. Default: none. */
  doAs?: string;
  /**
   * Log in with Kerberos (SPNEGO) instead of `user`: `true` uses the ticket cache (`KRB5CCNAME`,
   * from `kinit`); `{ principal, keytab }` gets tickets from a keytab (libkrb5's
   * `KRB5_CLIENT_KTNAME`, which this sets for the process). The `hadoop.auth` cookie the server
   * sets is reused until refused, then the client logs in once more and repeats the call. Needs
   * the optional `kerberos` package. Default: none.
   */
  kerberos?: true | KerberosLoginOptions;
}

/** Options of {@link KmsClient}. Only `url` is required. */
export interface KmsClientOptions extends KmsAuth {
  /**
   * Base URL of the KMS: `http://host:9600/kms`, `https://host:9600/kms`, or Hadoop's
   * `kms://http@host:9600/kms`. A URL without a path gets `/kms`; a trailing `/v1` is dropped.
   */
  url: string;
  /** Certificate authorities trusted for `https` (PEM). Default: Node's built-in list. */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  /** Refuse servers whose certificate does not verify. Default: `true`. */
  rejectUnauthorized?: boolean;
  /** Maximum open connections to the server (kept alive and reused). Default: `16`. From 1 to 1024. */
  connections?: number;
  /** How long an idle connection is kept open for reuse, in milliseconds. Default: `4000`. */
  keepAliveTimeoutMs?: number;
  /** Limit for opening a connection (TCP and TLS), in milliseconds. Default: `10000`. */
  connectTimeoutMs?: number;
  /**
   * Limit for one attempt of a call, from sending to the last byte of the answer, in
   * milliseconds. Default: `60000`. A call can override it (`timeoutMs`).
   */
  requestTimeoutMs?: number;
  /**
   * How many times a call is repeated after a retriable error (`error.retriable`: unreachable,
   * timeout, 502/503/504). Default: `0`, no retries. Note that a repeated create, roll, generate
   * or token request may be applied twice if the first attempt reached the server.
   */
  retries?: number;
  /** Wait before the first retry in milliseconds; doubles for each further one. Default: `100`. */
  retryDelayMs?: number;
  /** Largest answer body accepted, in bytes; a larger one fails the call. Default: `16777216` (16 MiB). */
  maxResponseBytes?: number;
}

type DefaultedOptions =
  | 'rejectUnauthorized'
  | 'connections'
  | 'keepAliveTimeoutMs'
  | 'connectTimeoutMs'
  | 'requestTimeoutMs'
  | 'retries'
  | 'retryDelayMs'
  | 'maxResponseBytes';

/** Defaults of {@link KmsClientOptions}. */
export const DEFAULT_KMS_CLIENT_OPTIONS: Readonly<Required<Pick<KmsClientOptions, DefaultedOptions>>> =
  Object.freeze({
    rejectUnauthorized: true,
    connections: 16,
    keepAliveTimeoutMs: 4000,
    connectTimeoutMs: 10_000,
    requestTimeoutMs: 60_000,
    retries: 0,
    retryDelayMs: 100,
    maxResponseBytes: 16 * 1024 * 1024,
  });

/** Options of one call. */
export interface KmsCallOptions {
  /** Cancels the call (also while waiting to retry); it then fails with `ERR_KMS_ABORTED`. */
  signal?: AbortSignal;
  /** Limit for each attempt of this call in milliseconds. Default: the client's `requestTimeoutMs`. */
  timeoutMs?: number;
}

/** Options of {@link KmsClient.createKey}; what is left out the server chooses. */
export interface CreateKeyOptions {
  /** Cipher. Server default: `AES/CTR/NoPadding`. */
  cipher?: string;
  /** Key length in bits. Server default: `128`. */
  length?: number;
  /** Free text stored in the metadata. */
  description?: string;
  /** Attributes stored in the metadata (e.g. `key.acl.name`). */
  attributes?: Readonly<Record<string, string>>;
  /** Key material to use instead of random bytes (needs the SET_KEY_MATERIAL ACL). */
  material?: Redacted<Buffer> | Buffer;
}

/** Options of {@link KmsClient.rollNewVersion}. */
export interface RollNewVersionOptions {
  /** Material of the new version instead of random bytes (needs the SET_KEY_MATERIAL ACL). */
  material?: Redacted<Buffer> | Buffer;
}

/** Options of {@link KmsClient.getDelegationToken}. */
export interface GetDelegationTokenOptions {
  /** Who may renew the token. Server default: the caller. */
  renewer?: string;
  /** `service=` parameter passed to the server. */
  service?: string;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** `key`: a key call (token or user name); `login`: needs a user name; `cancel`: no identity needed. */
type AuthMode = 'key' | 'login' | 'cancel';

interface RequestSpec {
  method: Method;
  /** Path below `<base>/v1`. */
  path: string;
  query?: Array<[string, string]>;
  body?: unknown;
  auth: AuthMode;
}

interface Answer {
  status: number;
  /** The reason phrase of the status line. */
  statusText: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

interface ResolvedAuth {
  user: string | undefined;
  token: KmsDelegationToken | undefined;
  doAs: string | undefined;
  /** The Kerberos session (its cookie) of this identity, in Kerberos mode. */
  kerberos: SpnegoSession | undefined;
}

interface BuiltRequest {
  method: Method | 'OPTIONS';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** What a client and the views made by `withAuth` share: one connection pool. */
interface Shared {
  pool: Pool;
  url: URL;
  closed: boolean;
  requestTimeoutMs: number;
  retries: number;
  retryDelayMs: number;
  maxResponseBytes: number;
}

const VIEW = Symbol('KmsClient view');
interface ViewInit {
  [VIEW]: { shared: Shared; auth: ResolvedAuth };
}

const MAX_GENERATE_KEYS = 100_000;
const DELEGATION_TOKEN_HEADER = 'x-hadoop-delegation-token';

/**
 * Client of a Hadoop-KMS-compatible server (REST API v1): keys, versions, metadata, encrypted
 * data keys, and delegation tokens. One instance keeps a pool of keep-alive connections to one
 * server; share it. Every failure is a {@link KmsError} subclass with a stable `code`; nothing is
 * retried unless `retries` says so. Key material travels in `Redacted` wrappers and the client
 * logs nothing.
 *
 * @example
 * ```ts
 * const kms = new KmsClient({ url: 'http://127.0.0.1:9600/kms', user: 'alice' });
 * await kms.createKey('k1', { description: 'table keys' });
 * const [eek] = await kms.generateEncryptedKeys('k1', 1);
 * const dek = await kms.decryptEncryptedKey(eek);   // dek.material.unwrap(): the data key
 * const token = await kms.getDelegationToken({ renewer: 'yarn' });
 * await kms.close();
 * ```
 */
export class KmsClient {
  readonly #shared: Shared;
  readonly #auth: ResolvedAuth;
  readonly #owner: boolean;

  constructor(options: KmsClientOptions) {
    const view =
      typeof options === 'object' && options !== null ? (options as Partial<ViewInit>)[VIEW] : undefined;
    if (view !== undefined) {
      this.#shared = view.shared;
      this.#auth = view.auth;
      this.#owner = false;
      return;
    }
    if (typeof options !== 'object' || options === null) {
      throw new InvalidOptionError('options', 'expected an options object with at least "url"');
    }
    const url = parseKmsUrl(options.url);
    const o = { ...DEFAULT_KMS_CLIENT_OPTIONS, ...definedOnly(options) };
    if (typeof o.rejectUnauthorized !== 'boolean') {
      throw new InvalidOptionError('rejectUnauthorized', 'expected a boolean');
    }
    const connections = checkInteger('connections', o.connections, 1, 1024);
    const keepAliveTimeoutMs = checkInteger('keepAliveTimeoutMs', o.keepAliveTimeoutMs, 1, 3_600_000);
    const connectTimeoutMs = checkInteger('connectTimeoutMs', o.connectTimeoutMs, 1, 3_600_000);
    const requestTimeoutMs = checkInteger('requestTimeoutMs', o.requestTimeoutMs, 1, 24 * 3_600_000);
    const retries = checkInteger('retries', o.retries, 0, 100);
    const retryDelayMs = checkInteger('retryDelayMs', o.retryDelayMs, 0, 600_000);
    const maxResponseBytes = checkInteger('maxResponseBytes', o.maxResponseBytes, 1024, 1024 * 1024 * 1024);
    const ca = checkCa(o.ca);
    this.#auth = resolveAuth(options, 'options');
    const tls =
      url.protocol === 'https:' ? { rejectUnauthorized: o.rejectUnauthorized, ...(ca ? { ca } : {}) } : {};
    const pool = new Pool(url.origin, {
      connections,
      keepAliveTimeout: keepAliveTimeoutMs,
      connect: { timeout: connectTimeoutMs, ...tls },
      // The per-call deadline (an AbortSignal) covers headers and body; undici's own timers
      // would otherwise cut long calls short with a different error.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    this.#shared = { pool, url, closed: false, requestTimeoutMs, retries, retryDelayMs, maxResponseBytes };
    this.#owner = true;
  }

  /** The server's base URL, e.g. `http://127.0.0.1:9600/kms`. */
  get url(): string {
    return this.#shared.url.href.replace(/\/$/, '');
  }

  /**
   * The same client (same connection pool and settings) acting as someone else: a different
   * user, token or `doAs`. Fields not given are not inherited. Closing a view does nothing; close
   * the client it came from.
   *
   * @example
   * ```ts
   * const token = await kms.getDelegationToken();
   * const names = await kms.withAuth({ delegationToken: token }).getKeyNames();
   * ```
   */
  withAuth(auth: KmsAuth): KmsClient {
    const init: ViewInit = { [VIEW]: { shared: this.#shared, auth: resolveAuth(auth, 'auth') } };
    return new KmsClient(init as unknown as KmsClientOptions);
  }

  /**
   * Creates a key and its first version `<name>@0` (POST `/v1/keys`, 201). The answer carries the
   * material only when the caller may read it (GET ACL).
   */
  async createKey(
    name: string,
    options: CreateKeyOptions = {},
    call?: KmsCallOptions,
  ): Promise<CreatedKeyVersion> {
    const ctx = this.#context('createKey', name);
    checkName(ctx, 'name', name);
    const body: Record<string, unknown> = { name };
    if (options.cipher !== undefined) body['cipher'] = checkArgString(ctx, 'cipher', options.cipher);
    if (options.length !== undefined) {
      if (!Number.isSafeInteger(options.length) || options.length <= 0) {
        throw new KmsInvalidArgumentError(
          ctx.operation,
          'length',
          'expected a positive integer number of bits',
        );
      }
      body['length'] = options.length;
    }
    if (options.description !== undefined) {
      if (typeof options.description !== 'string') {
        throw new KmsInvalidArgumentError(ctx.operation, 'description', 'expected a string');
      }
      body['description'] = options.description;
    }
    if (options.attributes !== undefined) body['attributes'] = checkAttributes(ctx, options.attributes);
    if (options.material !== undefined) body['material'] = encodeMaterial(ctx, options.material);
    const answer = await this.#send(ctx, { method: 'POST', path: '/keys', body, auth: 'key' }, call);
    const version = this.#parse(ctx, answer, (json) => requireKeyVersion(json));
    const location = answer.headers['location'];
    return { ...version, location: Array.isArray(location) ? location[0] : location };
  }

  /** Deletes a key and all its versions (DELETE `/v1/key/<name>`). */
  async deleteKey(name: string, call?: KmsCallOptions): Promise<void> {
    const ctx = this.#context('deleteKey', name);
    checkName(ctx, 'name', name);
    await this.#send(ctx, { method: 'DELETE', path: keyPath(name), auth: 'key' }, call);
  }

  /** Adds a version and makes it current (POST `/v1/key/<name>`). Returns the new version. */
  async rollNewVersion(
    name: string,
    options: RollNewVersionOptions = {},
    call?: KmsCallOptions,
  ): Promise<KeyVersion> {
    const ctx = this.#context('rollNewVersion', name);
    checkName(ctx, 'name', name);
    const body: Record<string, unknown> = {};
    if (options.material !== undefined) body['material'] = encodeMaterial(ctx, options.material);
    const answer = await this.#send(ctx, { method: 'POST', path: keyPath(name), body, auth: 'key' }, call);
    return this.#parse(ctx, answer, (json) => requireKeyVersion(json));
  }

  /**
   * Drops the server's caches for a key, including queued encrypted keys of older versions
   * (POST `/v1/key/<name>/_invalidatecache`). After a roll, the next generate uses the new version.
   */
  async invalidateCache(name: string, call?: KmsCallOptions): Promise<void> {
    const ctx = this.#context('invalidateCache', name);
    checkName(ctx, 'name', name);
    await this.#send(ctx, { method: 'POST', path: `${keyPath(name)}/_invalidatecache`, auth: 'key' }, call);
  }

  /** Metadata of a key, or `undefined` if there is no such key (GET `/v1/key/<name>/_metadata`). */
  async getMetadata(name: string, call?: KmsCallOptions): Promise<KeyMetadata | undefined> {
    const ctx = this.#context('getMetadata', name);
    checkName(ctx, 'name', name);
    const answer = await this.#send(
      ctx,
      { method: 'GET', path: `${keyPath(name)}/_metadata`, auth: 'key' },
      call,
    );
    return this.#parse(ctx, answer, (json) => parseMetadata(json));
  }

  /**
   * Metadata of several keys in one call (GET `/v1/keys/metadata?key=…`), in the order asked;
   * `undefined` for a key that does not exist.
   */
  async getKeysMetadata(
    names: readonly string[],
    call?: KmsCallOptions,
  ): Promise<Array<KeyMetadata | undefined>> {
    const ctx = this.#context('getKeysMetadata');
    // Checked for plain-JavaScript callers, on an unknown-typed alias: Array.isArray on the
    // argument itself would narrow the readonly array to any[].
    const given: unknown = names;
    if (!Array.isArray(given)) throw new KmsInvalidArgumentError(ctx.operation, 'names', 'expected an array');
    names.forEach((n, i) => checkName(ctx, `names[${i}]`, n));
    const query = names.map((n): [string, string] => ['key', n]);
    const answer = await this.#send(ctx, { method: 'GET', path: '/keys/metadata', query, auth: 'key' }, call);
    return this.#parse(ctx, answer, (json) =>
      array(json, 'answer').map((m, i) => parseMetadata(m, `answer[${i}]`)),
    );
  }

  /** The current version of a key, or `undefined` if there is no such key (`_currentversion`). */
  async getCurrentVersion(name: string, call?: KmsCallOptions): Promise<KeyVersion | undefined> {
    const ctx = this.#context('getCurrentVersion', name);
    checkName(ctx, 'name', name);
    const path = `${keyPath(name)}/_currentversion`;
    const answer = await this.#send(ctx, { method: 'GET', path, auth: 'key' }, call);
    return this.#parse(ctx, answer, (json) => parseKeyVersion(json));
  }

  /** Every version of a key, oldest first (`_versions`). */
  async getKeyVersions(name: string, call?: KmsCallOptions): Promise<KeyVersion[]> {
    const ctx = this.#context('getKeyVersions', name);
    checkName(ctx, 'name', name);
    const answer = await this.#send(
      ctx,
      { method: 'GET', path: `${keyPath(name)}/_versions`, auth: 'key' },
      call,
    );
    return this.#parse(ctx, answer, (json) =>
      json === null ? [] : array(json, 'answer').map((v, i) => requireKeyVersion(v, `answer[${i}]`)),
    );
  }

  /** One version by its name `<key>@<n>`, or `undefined` if it does not exist (GET `/v1/keyversion/<v>`). */
  async getKeyVersion(versionName: string, call?: KmsCallOptions): Promise<KeyVersion | undefined> {
    const ctx = this.#context('getKeyVersion', versionName);
    checkName(ctx, 'versionName', versionName);
    const path = `/keyversion/${encodeURIComponent(versionName)}`;
    const answer = await this.#send(ctx, { method: 'GET', path, auth: 'key' }, call);
    return this.#parse(ctx, answer, (json) => parseKeyVersion(json));
  }

  /** Names of all keys (GET `/v1/keys/names`). */
  async getKeyNames(call?: KmsCallOptions): Promise<string[]> {
    const ctx = this.#context('getKeyNames');
    const answer = await this.#send(ctx, { method: 'GET', path: '/keys/names', auth: 'key' }, call);
    return this.#parse(ctx, answer, (json) =>
      array(json, 'answer').map((n, i) => {
        if (typeof n !== 'string') throw new ShapeError(`answer[${i}] is not a string`);
        return n;
      }),
    );
  }

  /**
   * New data keys encrypted under the current version of `name` (GET `_eek?eek_op=generate`).
   * The server may serve them from a queue filled before a roll: see {@link invalidateCache}.
   */
  async generateEncryptedKeys(
    name: string,
    numKeys = 1,
    call?: KmsCallOptions,
  ): Promise<EncryptedKeyVersion[]> {
    const ctx = this.#context('generateEncryptedKeys', name);
    checkName(ctx, 'name', name);
    if (!Number.isSafeInteger(numKeys) || numKeys < 1 || numKeys > MAX_GENERATE_KEYS) {
      throw new KmsInvalidArgumentError(
        ctx.operation,
        'numKeys',
        `expected an integer from 1 to ${MAX_GENERATE_KEYS}`,
      );
    }
    const query: Array<[string, string]> = [
      ['eek_op', 'generate'],
      ['num_keys', String(numKeys)],
    ];
    const answer = await this.#send(
      ctx,
      { method: 'GET', path: `${keyPath(name)}/_eek`, query, auth: 'key' },
      call,
    );
    return this.#parse(ctx, answer, (json) =>
      array(json, 'answer').map((e, i) => parseEncryptedKeyVersion(e, `answer[${i}]`)),
    );
  }

  /** One new encrypted data key; see {@link generateEncryptedKeys}. */
  async generateEncryptedKey(name: string, call?: KmsCallOptions): Promise<EncryptedKeyVersion> {
    const [eek] = await this.generateEncryptedKeys(name, 1, call);
    if (eek === undefined) {
      throw new KmsBadResponseError(
        { operation: 'generateEncryptedKey', key: name },
        'no encrypted key in the answer',
      );
    }
    return eek;
  }

  /**
   * Decrypts a data key (POST `/v1/keyversion/<v>/_eek?eek_op=decrypt`). Returns the data key as a
   * KeyVersion with `versionName` `EK`.
   */
  async decryptEncryptedKey(eek: EncryptedKeyVersion, call?: KmsCallOptions): Promise<KeyVersion> {
    const ctx = this.#context('decryptEncryptedKey');
    const body = eekBody(ctx, eek);
    ctx.key = eek.encryptionKeyVersionName;
    const path = `/keyversion/${encodeURIComponent(eek.encryptionKeyVersionName)}/_eek`;
    const query: Array<[string, string]> = [['eek_op', 'decrypt']];
    const answer = await this.#send(ctx, { method: 'POST', path, query, body, auth: 'key' }, call);
    const version = this.#parse(ctx, answer, (json) => requireKeyVersion(json));
    if (version.material === null) throw new KmsBadResponseError(ctx, 'the decrypted key has no material');
    return version;
  }

  /**
   * Re-encrypts a data key under the current version of its key, keeping the IV
   * (POST `/v1/keyversion/<v>/_eek?eek_op=reencrypt`).
   */
  async reencryptEncryptedKey(eek: EncryptedKeyVersion, call?: KmsCallOptions): Promise<EncryptedKeyVersion> {
    const ctx = this.#context('reencryptEncryptedKey');
    const body = eekBody(ctx, eek);
    ctx.key = eek.encryptionKeyVersionName;
    const path = `/keyversion/${encodeURIComponent(eek.encryptionKeyVersionName)}/_eek`;
    const query: Array<[string, string]> = [['eek_op', 'reencrypt']];
    const answer = await this.#send(ctx, { method: 'POST', path, query, body, auth: 'key' }, call);
    return this.#parse(ctx, answer, (json) => parseEncryptedKeyVersion(json));
  }

  /**
   * Re-encrypts many data keys of one key in one call (POST `/v1/key/<name>/_reencryptbatch`);
   * all must belong to the same key. Returns them in the same order; an empty list makes no call.
   */
  async reencryptEncryptedKeys(
    eeks: readonly EncryptedKeyVersion[],
    call?: KmsCallOptions,
  ): Promise<EncryptedKeyVersion[]> {
    const ctx = this.#context('reencryptEncryptedKeys');
    const given: unknown = eeks;
    if (!Array.isArray(given)) throw new KmsInvalidArgumentError(ctx.operation, 'eeks', 'expected an array');
    if (eeks.length === 0) return [];
    const name = (eeks[0] as EncryptedKeyVersion).encryptionKeyName;
    const body = eeks.map((eek, i) => {
      eekBody(ctx, eek, `eeks[${i}]`);
      if (eek.encryptionKeyName !== name) {
        throw new KmsInvalidArgumentError(
          ctx.operation,
          `eeks[${i}]`,
          `belongs to another key than eeks[0] ("${name}")`,
        );
      }
      return encryptedKeyVersionJson(eek, (eek.encryptedKeyVersion.material as Redacted<Buffer>).unwrap());
    });
    ctx.key = name;
    const path = `${keyPath(name)}/_reencryptbatch`;
    const answer = await this.#send(ctx, { method: 'POST', path, body, auth: 'key' }, call);
    const out = this.#parse(ctx, answer, (json) =>
      array(json, 'answer').map((e, i) => parseEncryptedKeyVersion(e, `answer[${i}]`)),
    );
    if (out.length !== eeks.length) {
      throw new KmsBadResponseError(ctx, `${out.length} encrypted keys returned for ${eeks.length} sent`);
    }
    return out;
  }

  /**
   * Gets a delegation token (`op=GETDELEGATIONTOKEN`). Needs a real login (`user`), not a token.
   * Give the token to a process that has no login; it authenticates as this caller until it
   * expires or is cancelled.
   */
  async getDelegationToken(
    options: GetDelegationTokenOptions = {},
    call?: KmsCallOptions,
  ): Promise<KmsDelegationToken> {
    const ctx = this.#context('getDelegationToken');
    ctx.kind = 'token';
    const query: Array<[string, string]> = [['op', 'GETDELEGATIONTOKEN']];
    if (options.renewer !== undefined)
      query.push(['renewer', checkArgString(ctx, 'renewer', options.renewer)]);
    if (options.service !== undefined)
      query.push(['service', checkArgString(ctx, 'service', options.service)]);
    const answer = await this.#send(ctx, { method: 'GET', path: '/', query, auth: 'login' }, call);
    const urlString = this.#parse(ctx, answer, parseTokenAnswer);
    try {
      return KmsDelegationToken.fromUrlString(urlString);
    } catch (err) {
      if (err instanceof KmsMalformedTokenError)
        throw new KmsBadResponseError({ ...ctx, cause: err }, err.message);
      throw err;
    }
  }

  /**
   * Extends a token's life (`op=RENEWDELEGATIONTOKEN`); only its renewer may, with a real login.
   * Returns the new expiry time in epoch milliseconds (never past the token's `maxDate`).
   */
  async renewDelegationToken(
    token: KmsDelegationToken | string | Redacted<string>,
    call?: KmsCallOptions,
  ): Promise<number> {
    const ctx = this.#context('renewDelegationToken');
    ctx.kind = 'token';
    const t = tokenArgument(ctx, token);
    const query: Array<[string, string]> = [
      ['op', 'RENEWDELEGATIONTOKEN'],
      ['token', t.toUrlString()],
    ];
    const answer = await this.#send(ctx, { method: 'PUT', path: '/', query, auth: 'login' }, call);
    return this.#parse(ctx, answer, parseRenewAnswer);
  }

  /**
   * Cancels a token (`op=CANCELDELEGATIONTOKEN`); it stops working at once. The server needs no
   * login for this: holding the token is enough.
   */
  async cancelDelegationToken(
    token: KmsDelegationToken | string | Redacted<string>,
    call?: KmsCallOptions,
  ): Promise<void> {
    const ctx = this.#context('cancelDelegationToken');
    ctx.kind = 'token';
    const t = tokenArgument(ctx, token);
    const query: Array<[string, string]> = [
      ['op', 'CANCELDELEGATIONTOKEN'],
      ['token', t.toUrlString()],
    ];
    await this.#send(ctx, { method: 'PUT', path: '/', query, auth: 'cancel' }, call);
  }

  /**
   * Closes the connection pool after the calls in flight finish; later calls fail with
   * `ERR_KMS_CLIENT_CLOSED`. A view made by {@link withAuth} does not own the pool: closing it
   * does nothing.
   */
  async close(): Promise<void> {
    if (!this.#owner || this.#shared.closed) return;
    this.#shared.closed = true;
    await this.#shared.pool.close();
  }

  /** Same as {@link close}, for `await using`; safe to call after `close()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #context(operation: string, key?: string): CallContext {
    return key === undefined || typeof key !== 'string'
      ? { operation, kind: 'key' }
      : { operation, key, kind: 'key' };
  }

  #parse<T>(ctx: CallContext, answer: Answer, read: (json: unknown) => T): T {
    let json: unknown;
    try {
      json = JSON.parse(answer.body.toString('utf8'));
    } catch (err) {
      throw new KmsBadResponseError({ ...ctx, status: answer.status, cause: err }, 'the body is not JSON');
    }
    try {
      return read(json);
    } catch (err) {
      if (err instanceof ShapeError)
        throw new KmsBadResponseError({ ...ctx, status: answer.status }, err.message);
      throw err;
    }
  }

  async #send(ctx: CallContext, spec: RequestSpec, call: KmsCallOptions | undefined): Promise<Answer> {
    const timeoutMs =
      call?.timeoutMs === undefined ? this.#shared.requestTimeoutMs : checkCallTimeout(ctx, call.timeoutMs);
    const request = this.#build(spec);
    const { kerberos, token } = this.#auth;
    // Kerberos carries key calls without a token and the get and renewal of tokens; a cancel
    // needs no log-in (it sends the cookie when there is one).
    const session =
      kerberos !== undefined && !(spec.auth === 'key' && token !== undefined) ? kerberos : undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        const answer =
          session === undefined
            ? await this.#exchange(ctx, request, timeoutMs, call?.signal)
            : await this.#kerberosExchange(
                ctx,
                session,
                spec.auth !== 'cancel',
                request,
                timeoutMs,
                call?.signal,
              );
        return this.#checked(ctx, answer);
      } catch (err) {
        if (!(err instanceof KmsError) || !err.retriable || attempt >= this.#shared.retries) throw err;
        await pause(this.#shared.retryDelayMs * 2 ** attempt, call?.signal, ctx);
      }
    }
  }

  /**
   * A call with Kerberos credentials, as Hadoop's KMSClientProvider makes it: log in when no
   * cookie is held, send the call with the cookie, and when the server refuses the cookie (401,
   * or 403 with the reasons Hadoop's client retries on) log in once more and send it again.
   */
  async #kerberosExchange(
    ctx: CallContext,
    session: SpnegoSession,
    login: boolean,
    request: BuiltRequest,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Answer> {
    const send = async (): Promise<Answer> => {
      const cookie = session.cookieHeader;
      const answer = await this.#exchange(
        ctx,
        cookie === undefined ? request : { ...request, headers: { ...request.headers, cookie } },
        timeoutMs,
        signal,
      );
      session.observe(answer.headers);
      return answer;
    };
    if (login && session.cookieHeader === undefined)
      await this.#login(ctx, session, request.path, timeoutMs, signal);
    const answer = await send();
    if (!login || !refusedCredentials(answer)) return answer;
    session.drop();
    await this.#login(ctx, session, request.path, timeoutMs, signal);
    return send();
  }

  async #login(
    ctx: CallContext,
    session: SpnegoSession,
    path: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const exchange: RawExchange = (leg) =>
      this.#exchange(
        ctx,
        { ...leg, headers: { accept: 'application/json', ...leg.headers } },
        timeoutMs,
        signal,
      );
    try {
      await session.login(exchange, this.#shared.url.hostname, path);
    } catch (err) {
      if (err instanceof SpnegoLoginFailure) {
        throw new KmsKerberosLoginError({ operation: ctx.operation, reason: err.message, cause: err });
      }
      throw err;
    }
  }

  #build(spec: RequestSpec): BuiltRequest {
    const query = new URLSearchParams(spec.query ?? []);
    const headers: Record<string, string> = { accept: 'application/json' };
    const { user, token, doAs, kerberos } = this.#auth;
    if (spec.auth === 'key' && token !== undefined) {
      headers[DELEGATION_TOKEN_HEADER] = token.toUrlString();
    } else if (user !== undefined && kerberos === undefined) {
      query.append('user.name', user);
    } else if (spec.auth === 'login' && token !== undefined && kerberos === undefined) {
      // The server refuses this (a token cannot get or renew tokens); sending it anyway lets
      // the server answer with its own status rather than the client guessing.
      headers[DELEGATION_TOKEN_HEADER] = token.toUrlString();
    }
    if (doAs !== undefined && spec.auth !== 'cancel') query.append('doas', doAs);
    const qs = query.toString();
    const path = `${this.#shared.url.pathname.replace(/\/$/, '')}/v1${spec.path}${qs === '' ? '' : `?${qs}`}`;
    if (spec.body === undefined) return { method: spec.method, path, headers };
    headers['content-type'] = 'application/json';
    return { method: spec.method, path, headers, body: JSON.stringify(spec.body) };
  }

  /** One HTTP exchange; any status comes back (see {@link #checked}). */
  async #exchange(
    ctx: CallContext,
    request: BuiltRequest,
    timeoutMs: number,
    callerSignal: AbortSignal | undefined,
  ): Promise<Answer> {
    const shared = this.#shared;
    if (shared.closed) throw new KmsClientClosedError(ctx);
    if (callerSignal?.aborted === true) throw new KmsAbortedError({ ...ctx, cause: callerSignal.reason });
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = callerSignal === undefined ? deadline : AbortSignal.any([callerSignal, deadline]);
    try {
      const res = await shared.pool.request({ ...request, signal });
      const body = await readBody(res.body, shared.maxResponseBytes);
      if (body === undefined) {
        throw new KmsBadResponseError(
          { ...ctx, status: res.statusCode },
          `the body is larger than maxResponseBytes (${shared.maxResponseBytes})`,
        );
      }
      return { status: res.statusCode, statusText: res.statusText, headers: res.headers, body };
    } catch (err) {
      if (err instanceof KmsError) throw err;
      throw errorFromTransport(ctx, err, {
        // Read again: the earlier check narrowed it, but the signal may have fired since.
        aborted: isAborted(callerSignal),
        timedOut: deadline.aborted,
        timeoutMs,
      });
    }
  }

  /** The answer when it is a success, else the typed error of its status and body. */
  #checked(ctx: CallContext, answer: Answer): Answer {
    if (answer.status >= 200 && answer.status < 300) return answer;
    const challenge = answer.headers['www-authenticate'];
    throw errorFromHttpResponse(
      ctx,
      answer.status,
      Array.isArray(challenge) ? challenge[0] : challenge,
      answer.body,
      answer.statusText,
    );
  }
}

/**
 * Whether the server refused the call's Kerberos credentials in a way Hadoop's KMSClientProvider
 * answers with a new log-in: a 401, or a 403 whose reason phrase says the request came without
 * credentials or with a cookie whose signature does not verify (the server's secret changed).
 */
function refusedCredentials(answer: Answer): boolean {
  if (answer.status === 401) return true;
  return (
    answer.status === 403 &&
    (answer.statusText === 'Anonymous requests are disallowed' ||
      answer.statusText.includes('Invalid signature'))
  );
}

async function readBody(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  maxBytes: number,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxBytes) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function pause(ms: number, signal: AbortSignal | undefined, ctx: CallContext): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(new KmsAbortedError({ ...ctx, cause: signal.reason }));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new KmsAbortedError({ ...ctx, cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function resolveAuth(auth: KmsAuth, field: string): ResolvedAuth {
  if (typeof auth !== 'object' || auth === null) throw new InvalidOptionError(field, 'expected an object');
  const prefix = field === 'options' ? '' : `${field}.`;
  const user = auth.user === undefined ? undefined : checkIdentity(`${prefix}user`, auth.user);
  const doAs = auth.doAs === undefined ? undefined : checkIdentity(`${prefix}doAs`, auth.doAs);
  let token: KmsDelegationToken | undefined;
  if (auth.delegationToken !== undefined) {
    try {
      token = KmsDelegationToken.from(auth.delegationToken);
    } catch (err) {
      if (err instanceof KmsMalformedTokenError) {
        throw new InvalidOptionError(
          `${prefix}delegationToken`,
          `not a delegation token URL string: ${err.reason}`,
        );
      }
      throw err;
    }
  }
  let kerberos: SpnegoSession | undefined;
  if (auth.kerberos !== undefined) {
    kerberos = new SpnegoSession(checkKerberos(`${prefix}kerberos`, auth.kerberos));
    if (user !== undefined) {
      throw new InvalidOptionError(
        `${prefix}kerberos`,
        'give either "user" (simple) or "kerberos", not both',
      );
    }
  }
  return { user, token, doAs, kerberos };
}

function checkKerberos(option: string, value: unknown): KerberosLoginOptions {
  if (value === true) return {};
  if (typeof value !== 'object' || value === null) {
    throw new InvalidOptionError(option, 'expected true or { principal?, keytab? }');
  }
  const { principal, keytab } = value as Record<string, unknown>;
  const out: { principal?: string; keytab?: string } = {};
  if (principal !== undefined) out.principal = checkIdentity(`${option}.principal`, principal);
  if (keytab !== undefined) out.keytab = checkNonEmptyString(`${option}.keytab`, keytab);
  if (out.keytab !== undefined && out.principal === undefined) {
    throw new InvalidOptionError(`${option}.principal`, 'a keytab needs the principal to log in as');
  }
  return out;
}

function checkIdentity(option: string, value: unknown): string {
  const s = checkNonEmptyString(option, value);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(s)) throw new InvalidOptionError(option, 'contains control characters');
  return s;
}

function checkCa(ca: KmsClientOptions['ca']): string | Buffer | Array<string | Buffer> | undefined {
  if (ca === undefined) return undefined;
  const ok = (v: unknown): v is string | Buffer => typeof v === 'string' || Buffer.isBuffer(v);
  if (ok(ca)) return ca;
  if (Array.isArray(ca) && ca.every(ok)) return [...ca];
  throw new InvalidOptionError('ca', 'expected a PEM string, a Buffer, or an array of them');
}

function checkCallTimeout(ctx: CallContext, timeoutMs: unknown): number {
  if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    throw new KmsInvalidArgumentError(
      ctx.operation,
      'timeoutMs',
      'expected a positive integer number of milliseconds',
    );
  }
  return timeoutMs;
}

function checkName(ctx: CallContext, argument: string, name: unknown): void {
  if (typeof name !== 'string' || name.length === 0) {
    throw new KmsInvalidArgumentError(ctx.operation, argument, 'expected a non-empty string');
  }
}

function checkArgString(ctx: CallContext, argument: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new KmsInvalidArgumentError(ctx.operation, argument, 'expected a non-empty string');
  }
  return value;
}

function checkAttributes(ctx: CallContext, attributes: unknown): Record<string, string> {
  if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) {
    throw new KmsInvalidArgumentError(ctx.operation, 'attributes', 'expected an object of strings');
  }
  for (const [k, v] of Object.entries(attributes)) {
    if (typeof v !== 'string') {
      throw new KmsInvalidArgumentError(ctx.operation, `attributes.${k}`, 'expected a string');
    }
  }
  return { ...(attributes as Record<string, string>) };
}

function encodeMaterial(ctx: CallContext, material: unknown): string {
  const bytes = material instanceof Redacted ? (material.unwrap() as unknown) : material;
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) {
    throw new KmsInvalidArgumentError(
      ctx.operation,
      'material',
      'expected a non-empty Buffer (plain or Redacted)',
    );
  }
  return encodeBase64Url(bytes);
}

/** Checks an EEK argument and returns the `{name, iv, material}` body of decrypt/reencrypt. */
function eekBody(ctx: CallContext, eek: EncryptedKeyVersion, argument = 'eek'): Record<string, string> {
  const bad = (reason: string): never => {
    throw new KmsInvalidArgumentError(ctx.operation, argument, reason);
  };
  if (typeof eek !== 'object' || eek === null) bad('expected an EncryptedKeyVersion');
  if (typeof eek.encryptionKeyName !== 'string' || eek.encryptionKeyName === '')
    bad('encryptionKeyName is empty');
  if (typeof eek.encryptionKeyVersionName !== 'string' || eek.encryptionKeyVersionName === '') {
    bad('encryptionKeyVersionName is empty');
  }
  if (!(eek.iv instanceof Uint8Array) || eek.iv.length === 0) bad('iv is not a non-empty Buffer');
  const inner = eek.encryptedKeyVersion;
  if (typeof inner !== 'object' || inner === null) bad('encryptedKeyVersion is missing');
  if (inner.versionName !== 'EEK')
    bad(`encryptedKeyVersion.versionName must be "EEK", is "${String(inner.versionName)}"`);
  const material = inner.material instanceof Redacted ? (inner.material.unwrap() as unknown) : undefined;
  if (!(material instanceof Uint8Array) || material.length === 0) {
    bad('encryptedKeyVersion.material must be a non-empty Redacted<Buffer>');
  }
  return {
    name: eek.encryptionKeyName,
    iv: encodeBase64Url(eek.iv),
    material: encodeBase64Url(material as Uint8Array),
  };
}

function tokenArgument(
  ctx: CallContext,
  token: KmsDelegationToken | string | Redacted<string>,
): KmsDelegationToken {
  try {
    return KmsDelegationToken.from(token);
  } catch (err) {
    if (err instanceof KmsMalformedTokenError) throw new KmsMalformedTokenError(ctx.operation, err.reason);
    throw err;
  }
}

function keyPath(name: string): string {
  return `/key/${encodeURIComponent(name)}`;
}
