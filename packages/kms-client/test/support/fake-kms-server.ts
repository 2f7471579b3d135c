// A small KMS that speaks the Hadoop KMS wire protocol (REST API v1, RemoteException bodies,
// simple and delegation-token authentication, the token operations) with Hadoop's own statuses,
// e.g. 500 for a missing or an existing key. It keeps everything in memory, records every request
// it receives, and can be told to answer the next request in any way (a raw status, a hang, a
// dropped connection) to exercise the client's error handling.
import { createCipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Redacted } from '@fastpath/core';
import { DelegationTokenIdentifier, Token } from '@fastpath/hadoop-common';
import { KmsDelegationToken } from '../../src/index.js';

export interface FakeKmsOptions {
  /** Serve https with this key and certificate. */
  tls?: { key: string; cert: string };
  /** Users refused every key operation (403 AuthorizationException). */
  deniedUsers?: readonly string[];
  /** Users who may create and roll keys but not read material (answers carry `material: null`). */
  noMaterialUsers?: readonly string[];
  /** Proxy-user rules: real user → users it may act as. */
  proxyUsers?: Readonly<Record<string, readonly string[]>>;
  /** Default 24 h. */
  renewIntervalMs?: number;
  /** Default 7 days. */
  maxLifetimeMs?: number;
}

export interface RecordedRequest {
  method: string;
  /** Raw path, percent-encoding kept. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  remotePort: number;
}

type Interceptor = (req: IncomingMessage, res: ServerResponse) => void;

interface StoredKey {
  cipher: string;
  length: number;
  description: string | null;
  attributes: Record<string, string>;
  created: number;
  versions: Buffer[];
}

interface StoredToken {
  owner: string;
  renewer: string;
  renewDate: number;
  maxDate: number;
}

class HttpAnswer extends Error {
  constructor(
    readonly status: number,
    readonly exception: string,
    readonly javaClassName: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const illegalArgument = (message: string): HttpAnswer =>
  new HttpAnswer(400, 'IllegalArgumentException', 'java.lang.IllegalArgumentException', message);
const ioException = (message: string): HttpAnswer =>
  new HttpAnswer(500, 'IOException', 'java.io.IOException', message);
const authorization = (message: string): HttpAnswer =>
  new HttpAnswer(
    403,
    'AuthorizationException',
    'org.apache.hadoop.security.authorize.AuthorizationException',
    message,
  );
const authentication = (message: string): HttpAnswer =>
  new HttpAnswer(
    403,
    'AuthenticationException',
    'org.apache.hadoop.security.authentication.client.AuthenticationException',
    message,
  );

const TOKEN_OPS: Record<string, string> = {
  GETDELEGATIONTOKEN: 'GET',
  RENEWDELEGATIONTOKEN: 'PUT',
  CANCELDELEGATIONTOKEN: 'PUT',
};

export class FakeKms {
  readonly requests: RecordedRequest[] = [];
  readonly keys = new Map<string, StoredKey>();
  readonly tokens = new Map<number, StoredToken>();
  /** Added to the wall clock: tests move time forward instead of sleeping. */
  clockOffsetMs = 0;
  #server: Server;
  #interceptors: Interceptor[] = [];
  #masterKey = randomBytes(8);
  #sequence = 0;
  #options: FakeKmsOptions;
  #url = '';

  constructor(options: FakeKmsOptions = {}) {
    this.#options = options;
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.#handle(req, res).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
    };
    this.#server = options.tls ? createHttpsServer(options.tls, handler) : createHttpServer(handler);
  }

  /** `http(s)://127.0.0.1:<port>/kms`. */
  get url(): string {
    return this.#url;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#url = `${this.#options.tls ? 'https' : 'http'}://127.0.0.1:${this.port}/kms`;
    return this;
  }

  /** The next request (after recording it) is answered by `handler` instead of the KMS. */
  interceptNext(handler: Interceptor): void {
    this.#interceptors.push(handler);
  }

  /** Requests received so far that had this method and path below `/kms/v1`. */
  requestsTo(method: string, subPath: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === `/kms/v1${subPath}`);
  }

  get lastRequest(): RecordedRequest {
    const last = this.requests[this.requests.length - 1];
    if (last === undefined) throw new Error('no request received');
    return last;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    this.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      remotePort: req.socket.remotePort ?? 0,
    });
    const interceptor = this.#interceptors.shift();
    if (interceptor !== undefined) {
      interceptor(req, res);
      return;
    }
    try {
      if (!url.pathname.startsWith('/kms/v1')) {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
        return;
      }
      const op = url.searchParams.get('op')?.toUpperCase();
      if (op !== undefined && op in TOKEN_OPS) {
        this.#tokenOperation(op, req, url.searchParams, res);
        return;
      }
      const user = this.#authenticate(req, url.searchParams, res);
      if (user === undefined) return;
      this.#route(req, url.pathname.slice('/kms/v1'.length), url.searchParams, body, user, res);
    } catch (err) {
      if (!(err instanceof HttpAnswer)) throw err;
      res.writeHead(err.status, { 'content-type': 'application/json', ...err.headers });
      res.end(
        JSON.stringify({
          RemoteException: {
            message: err.message,
            exception: err.exception,
            javaClassName: err.javaClassName,
          },
        }),
      );
    }
  }

  /** The caller's identity, or undefined after answering 401. */
  #authenticate(req: IncomingMessage, query: URLSearchParams, res: ServerResponse): string | undefined {
    const header = req.headers['x-hadoop-delegation-token'];
    const presented = (Array.isArray(header) ? header[0] : header) ?? query.get('delegation') ?? undefined;
    let user: string;
    if (presented !== undefined) {
      user = this.#verify(presented).owner;
    } else {
      const name = query.get('user.name');
      if (name === null || name === '') {
        res.writeHead(401, { 'www-authenticate': 'PseudoAuth', 'content-type': 'text/html' });
        res.end('<html><body><h2>HTTP ERROR 401 Authentication required</h2></body></html>');
        return undefined;
      }
      user = name;
    }
    return this.#impersonate(user, query);
  }

  #impersonate(user: string, query: URLSearchParams): string {
    const doAs = query.get('doas');
    if (doAs === null) return user;
    if (!(this.#options.proxyUsers?.[user] ?? []).includes(doAs)) {
      throw authorization(`User: ${user} is not allowed to impersonate ${doAs}`);
    }
    return doAs;
  }

  #verify(urlString: string): StoredToken & { sequenceNumber: number } {
    let token: KmsDelegationToken;
    try {
      token = KmsDelegationToken.fromUrlString(urlString);
    } catch {
      throw authentication('java.io.IOException: Could not decode the delegation token');
    }
    const expected = createHmac('sha1', this.#masterKey).update(token.identifier).digest();
    const password = token.password.unwrap();
    if (password.length !== expected.length || !timingSafeEqual(password, expected)) {
      throw authentication(
        `org.apache.hadoop.security.token.SecretManager$InvalidToken: token (${String(token)}) is invalid, password doesn't match`,
      );
    }
    const stored = this.tokens.get(token.sequenceNumber);
    if (stored === undefined) {
      throw authentication(
        `org.apache.hadoop.security.token.SecretManager$InvalidToken: token (${String(token)}) can't be found in cache`,
      );
    }
    if (stored.renewDate < this.#now()) {
      throw authentication(
        `org.apache.hadoop.security.token.SecretManager$InvalidToken: token (${String(token)}) is expired`,
      );
    }
    return { ...stored, sequenceNumber: token.sequenceNumber };
  }

  #tokenOperation(op: string, req: IncomingMessage, query: URLSearchParams, res: ServerResponse): void {
    const method = TOKEN_OPS[op] as string;
    if (req.method !== method) {
      throw illegalArgument(
        `Wrong HTTP method [${req.method}] for operation [${op}], it should be [${method}]`,
      );
    }
    const realUser = query.get('user.name') ?? undefined;
    if (op === 'CANCELDELEGATIONTOKEN') {
      const urlString = requireToken(op, query);
      try {
        const token = this.#verifyForManagement(urlString);
        const canceller = realUser ?? token.owner;
        if (canceller !== token.owner && canceller !== token.renewer) throw new Error('not authorized');
        this.tokens.delete(token.sequenceNumber);
      } catch {
        throw new HttpAnswer(
          404,
          'InvalidToken',
          'org.apache.hadoop.security.token.SecretManager$InvalidToken',
          'Invalid delegation token, cannot cancel',
        );
      }
      res.writeHead(200).end();
      return;
    }
    if (realUser === undefined || realUser === '') {
      // The pseudo handler's own refusal: no body, a challenge; a token is not a login here.
      res.writeHead(403, { 'www-authenticate': 'PseudoAuth' }).end();
      return;
    }
    const user = this.#impersonate(realUser, query);
    if (op === 'GETDELEGATIONTOKEN') {
      const now = this.#now();
      const sequenceNumber = ++this.#sequence;
      const maxDate = now + (this.#options.maxLifetimeMs ?? 7 * 86_400_000);
      const renewer = query.get('renewer') ?? user;
      const identifier = new DelegationTokenIdentifier('kms-dt', {
        owner: user,
        renewer,
        realUser: user === realUser ? '' : realUser,
        issueDate: now,
        maxDate,
        sequenceNumber,
        masterKeyId: 1,
      }).bytes;
      const password = createHmac('sha1', this.#masterKey).update(identifier).digest();
      this.tokens.set(sequenceNumber, {
        owner: user,
        renewer,
        renewDate: Math.min(maxDate, now + (this.#options.renewIntervalMs ?? 86_400_000)),
        maxDate,
      });
      const urlString = new Token({
        identifier,
        password: new Redacted(password),
        kind: 'kms-dt',
        service: query.get('service') ?? '',
      }).toUrlString();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify({ Token: { urlString } })}\n`);
      return;
    }
    const urlString = requireToken(op, query);
    const token = this.#verifyForManagement(urlString, true);
    if (token.maxDate < this.#now()) {
      throw authentication(
        'org.apache.hadoop.security.token.SecretManager$InvalidToken: tried to renew an expired token',
      );
    }
    if (token.renewer !== realUser) {
      throw authentication(
        `org.apache.hadoop.security.AccessControlException: ${realUser} tried to renew a token with non-matching renewer ${token.renewer}`,
      );
    }
    const renewDate = Math.min(token.maxDate, this.#now() + (this.#options.renewIntervalMs ?? 86_400_000));
    (this.tokens.get(token.sequenceNumber) as StoredToken).renewDate = renewDate;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ long: renewDate }));
  }

  /** Like #verify, but an expired renew date does not matter (renew and cancel still work). */
  #verifyForManagement(urlString: string, renewing = false): StoredToken & { sequenceNumber: number } {
    let token: KmsDelegationToken;
    try {
      token = KmsDelegationToken.fromUrlString(urlString);
    } catch {
      throw authentication('java.io.IOException: Could not decode the delegation token');
    }
    const expected = createHmac('sha1', this.#masterKey).update(token.identifier).digest();
    const stored = this.tokens.get(token.sequenceNumber);
    if (!token.password.unwrap().equals(expected) || stored === undefined) {
      throw authentication(
        renewing
          ? 'org.apache.hadoop.security.token.SecretManager$InvalidToken: Renewal request for unknown token'
          : 'Token not found',
      );
    }
    return { ...stored, sequenceNumber: token.sequenceNumber };
  }

  #route(
    req: IncomingMessage,
    sub: string,
    query: URLSearchParams,
    body: string,
    user: string,
    res: ServerResponse,
  ): void {
    const method = req.method ?? '';
    const deny = (op: string, key?: string): void => {
      if (this.#options.deniedUsers?.includes(user)) {
        throw authorization(
          `User:${user} not allowed to do '${op}'${key === undefined ? '' : ` on '${key}'`}`,
        );
      }
    };
    const json = (status: number, value: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
    };
    const withMaterial = !(this.#options.noMaterialUsers ?? []).includes(user);

    if (sub === '/keys' && method === 'POST') {
      const b = parseBody(body) as Record<string, unknown>;
      const name = b['name'];
      if (typeof name !== 'string' || name === '') throw illegalArgument("Parameter 'name' cannot be empty");
      deny('CREATE_KEY', name);
      if (this.keys.has(name)) throw ioException(`Key ${name} already exists in fake keystore`);
      const length = typeof b['length'] === 'number' ? b['length'] : 128;
      const material =
        typeof b['material'] === 'string' ? Buffer.from(b['material'], 'base64') : randomBytes(length / 8);
      this.keys.set(name, {
        cipher: typeof b['cipher'] === 'string' ? b['cipher'] : 'AES/CTR/NoPadding',
        length,
        description: typeof b['description'] === 'string' ? b['description'] : null,
        attributes: (b['attributes'] as Record<string, string> | undefined) ?? {},
        created: this.#now(),
        versions: [material],
      });
      const scheme = this.#options.tls ? 'https' : 'http';
      json(201, keyVersion(name, 0, material, withMaterial), {
        location: `${scheme}://${req.headers.host}/kms/v1/key/${encodeURIComponent(name)}`,
      });
      return;
    }
    if (sub === '/keys/names' && method === 'GET') {
      deny('GET_KEYS');
      json(200, [...this.keys.keys()]);
      return;
    }
    if (sub === '/keys/metadata' && method === 'GET') {
      deny('GET_KEYS_METADATA');
      json(
        200,
        query.getAll('key').map((name) => this.#metadata(name)),
      );
      return;
    }
    const keyMatch = /^\/key\/([^/]+)(\/_[a-z]+)?$/.exec(sub);
    if (keyMatch) {
      const name = decodeURIComponent(keyMatch[1] as string);
      const action = keyMatch[2];
      const key = this.keys.get(name);
      if (action === undefined && method === 'DELETE') {
        deny('DELETE_KEY', name);
        if (!this.keys.delete(name)) throw ioException(`Key ${name} does not exist in fake keystore`);
        res.writeHead(200).end();
        return;
      }
      if (action === undefined && method === 'POST') {
        deny('ROLL_NEW_VERSION', name);
        if (key === undefined) throw ioException(`Key ${name} not found`);
        const b = parseBody(body) as Record<string, unknown>;
        const material =
          typeof b['material'] === 'string'
            ? Buffer.from(b['material'], 'base64')
            : randomBytes(key.length / 8);
        key.versions.push(material);
        json(200, keyVersion(name, key.versions.length - 1, material, withMaterial));
        return;
      }
      if ((action === undefined || action === '/_metadata') && method === 'GET') {
        deny('GET_METADATA', name);
        json(200, this.#metadata(name));
        return;
      }
      if (action === '/_invalidatecache' && method === 'POST') {
        deny('INVALIDATE_CACHE', name);
        if (key === undefined) throw ioException(`Key ${name} not found`);
        res.writeHead(200).end();
        return;
      }
      if (action === '/_currentversion' && method === 'GET') {
        deny('GET_CURRENT_KEY', name);
        json(
          200,
          key === undefined
            ? {}
            : keyVersion(name, key.versions.length - 1, key.versions.at(-1) as Buffer, true),
        );
        return;
      }
      if (action === '/_versions' && method === 'GET') {
        deny('GET_KEY_VERSIONS', name);
        json(200, key === undefined ? [] : key.versions.map((m, i) => keyVersion(name, i, m, true)));
        return;
      }
      if (action === '/_eek' && method === 'GET') {
        const eekOp = query.get('eek_op');
        if (eekOp !== 'generate') {
          throw illegalArgument(
            'IllegalArgumentException Wrong eek_op value, it must be generate or decrypt',
          );
        }
        deny('GENERATE_EEK', name);
        if (key === undefined) throw ioException(`Key ${name} not found`);
        const n = Number(query.get('num_keys') ?? '1');
        const current = key.versions.length - 1;
        json(
          200,
          Array.from({ length: n }, () => {
            const iv = randomBytes(16);
            const dek = randomBytes((key.versions[current] as Buffer).length);
            return eek(name, current, iv, ctr(key.versions[current] as Buffer, iv, dek));
          }),
        );
        return;
      }
      if (action === '/_reencryptbatch' && method === 'POST') {
        deny('REENCRYPT_EEK_BATCH', name);
        if (key === undefined) throw ioException(`Key ${name} not found`);
        const items = parseBody(body);
        if (!Array.isArray(items)) throw illegalArgument('the body must be a JSON array');
        const current = key.versions.length - 1;
        json(
          200,
          items.map((item: Record<string, unknown>) => {
            const inner = item['encryptedKeyVersion'] as Record<string, string>;
            if (inner['name'] !== name) throw illegalArgument(`All keys must belong to the key '${name}'`);
            const version = this.#version(String(item['versionName']));
            const iv = Buffer.from(String(item['iv']), 'base64');
            const dek = ctr(version, iv, Buffer.from(inner['material'] as string, 'base64'));
            return eek(name, current, iv, ctr(key.versions[current] as Buffer, iv, dek));
          }),
        );
        return;
      }
    }
    const versionMatch = /^\/keyversion\/([^/]+)(\/_eek)?$/.exec(sub);
    if (versionMatch) {
      const versionName = decodeURIComponent(versionMatch[1] as string);
      if (versionMatch[2] === undefined && method === 'GET') {
        deny('GET_KEY_VERSION', versionName);
        const [name, n] = splitVersion(versionName);
        const material = this.keys.get(name)?.versions[n];
        json(200, material === undefined ? {} : keyVersion(name, n, material, true));
        return;
      }
      if (versionMatch[2] !== undefined && method === 'POST') {
        const eekOp = query.get('eek_op');
        if (eekOp !== 'decrypt' && eekOp !== 'reencrypt') {
          throw illegalArgument(
            'IllegalArgumentException Wrong eek_op value, it must be generate or decrypt',
          );
        }
        deny(eekOp === 'decrypt' ? 'DECRYPT_EEK' : 'REENCRYPT_EEK', versionName);
        const b = parseBody(body) as Record<string, string>;
        const [name] = splitVersion(versionName);
        if (b['name'] !== name)
          throw illegalArgument(`KeyVersion '${versionName}' does not belong to the key '${b['name']}'`);
        const version = this.#version(versionName);
        const iv = Buffer.from(b['iv'] ?? '', 'base64');
        const dek = ctr(version, iv, Buffer.from(b['material'] ?? '', 'base64'));
        if (eekOp === 'decrypt') {
          json(200, { name, versionName: 'EK', material: dek.toString('base64url') });
          return;
        }
        const key = this.keys.get(name) as StoredKey;
        const current = key.versions.length - 1;
        json(200, eek(name, current, iv, ctr(key.versions[current] as Buffer, iv, dek)));
        return;
      }
    }
    throw new HttpAnswer(
      404,
      'NotFoundException',
      'javax.ws.rs.NotFoundException',
      `no resource ${method} ${sub}`,
    );
  }

  #metadata(name: string): Record<string, unknown> {
    const key = this.keys.get(name);
    if (key === undefined) return {};
    return {
      name,
      cipher: key.cipher,
      length: key.length,
      description: key.description,
      attributes: key.attributes,
      created: key.created,
      versions: key.versions.length,
    };
  }

  #version(versionName: string): Buffer {
    const [name, n] = splitVersion(versionName);
    const material = this.keys.get(name)?.versions[n];
    if (material === undefined) throw illegalArgument(`'${versionName}' not found`);
    return material;
  }
}

export async function startFakeKms(options: FakeKmsOptions = {}): Promise<FakeKms> {
  return new FakeKms(options).listen();
}

function requireToken(op: string, query: URLSearchParams): string {
  const token = query.get('token');
  if (token === null || token === '')
    throw illegalArgument(`Operation [${op}] requires the parameter [token]`);
  return token;
}

function parseBody(body: string): unknown {
  if (body === '') return {};
  try {
    return JSON.parse(body);
  } catch {
    throw illegalArgument('the body is not JSON');
  }
}

function splitVersion(versionName: string): [string, number] {
  const at = versionName.lastIndexOf('@');
  return at < 0 ? [versionName, -1] : [versionName.slice(0, at), Number(versionName.slice(at + 1))];
}

function keyVersion(
  name: string,
  n: number,
  material: Buffer,
  withMaterial: boolean,
): Record<string, unknown> {
  return {
    name,
    versionName: `${name}@${n}`,
    material: withMaterial ? material.toString('base64url') : null,
  };
}

function eek(name: string, version: number, iv: Buffer, encrypted: Buffer): Record<string, unknown> {
  return {
    versionName: `${name}@${version}`,
    iv: iv.toString('base64url'),
    encryptedKeyVersion: { name, versionName: 'EEK', material: encrypted.toString('base64url') },
  };
}

/** AES-CTR under the flipped IV, as the KMS encrypts data keys (encrypting and decrypting alike). */
export function ctr(key: Buffer, iv: Buffer, data: Buffer): Buffer {
  const flipped = Buffer.from(iv.map((b) => b ^ 0xff));
  const cipher = createCipheriv(`aes-${key.length * 8}-ctr`, key, flipped);
  return Buffer.concat([cipher.update(data), cipher.final()]);
}
