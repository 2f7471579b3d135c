// The real @fastpath/kms-server on 127.0.0.1 port 0 with a fresh data directory, a client for it,
// and raw HTTP for the few wire details the client does not expose (status 201, headers, cookies,
// requests the client never sends, such as a wrong method).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKmsServer } from '@fastpath/kms-server';
import type { KmsServer, KmsServerOptions } from '@fastpath/kms-server';
import { Agent, request } from 'undici';
import { KmsClient } from '../../src/index.js';
import type { KmsAuth } from '../../src/index.js';

export interface RawAnswer {
  status: number;
  /** The reason phrase of the status line. */
  statusText: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RealKms extends AsyncDisposable {
  readonly server: KmsServer;
  /** `http://127.0.0.1:<port>/kms`. */
  readonly url: string;
  readonly dir: string;
  /** The client acting as `user` (simple authentication). */
  as(user: string): KmsClient;
  /** The client with any authentication (none, a token, doAs). */
  withAuth(auth: KmsAuth): KmsClient;
  /** One HTTP request to `path` (below the server root, e.g. `/kms/v1/keys/names?user.name=a`). */
  raw(
    method: string,
    path: string,
    options?: { headers?: Record<string, string>; body?: string },
  ): Promise<RawAnswer>;
  auditLines(): string[];
  close(): Promise<void>;
}

/** Raw HTTP requests to the server at `base` (`http://host:port`) over `agent`. */
export function rawRequests(base: string, agent: Agent): RealKms['raw'] {
  return async (method, path, opts = {}) => {
    const res = await request(`${base}${path}`, {
      method: method as 'GET',
      headers: opts.headers ?? {},
      ...(opts.body === undefined ? {} : { body: opts.body }),
      dispatcher: agent,
    });
    return {
      status: res.statusCode,
      statusText: res.statusText,
      headers: res.headers,
      body: await res.body.text(),
    };
  };
}

/** The audit log's lines; none while the server has not written the file yet. */
export function readAuditLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
  } catch {
    return [];
  }
}

let serial = 0;

export async function startRealKms(options: KmsServerOptions = {}): Promise<RealKms> {
  const dir = mkdtempSync(join(tmpdir(), `kms-client-real-${++serial}-`));
  let server: KmsServer;
  try {
    server = await createKmsServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: join(dir, 'data'),
      // A cheap key derivation: these tests are about the API, not the keystore.
      scrypt: { logN: 10, r: 8, p: 1 },
      ...options,
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let base: string;
  try {
    base = await server.listen();
  } catch (error) {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const client = new KmsClient({ url: `${base}/kms` });
  const agent = new Agent();
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await client.close();
    await agent.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    server,
    url: `${base}/kms`,
    dir,
    as: (user) => client.withAuth({ user }),
    withAuth: (auth) => client.withAuth(auth),
    raw: rawRequests(base, agent),
    auditLines: () => readAuditLines(server.settings.audit.file),
    close,
    [Symbol.asyncDispose]: close,
  };
}
