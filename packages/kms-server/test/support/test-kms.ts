import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { remoteExceptionOf, waitFor, type RemoteExceptionBody } from '@fastpath/test-support';
import { createKmsServer, type KmsServer, type KmsServerOptions } from '../../src/index.js';

/**
 * An injected request's answer whose `json()` is `unknown` (light-my-request types it `any`):
 * tests read it through the typed readers of `kms-json.ts`.
 */
export interface KmsReply extends Omit<LightMyRequestResponse, 'json'> {
  json(): unknown;
}

/** A KMS on a fresh data directory with a cheap key derivation, disposed with its directory. */
export interface TestKms extends AsyncDisposable {
  readonly server: KmsServer;
  readonly dir: string;
  /** An injected request; `user` adds `user.name`. */
  call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS',
    path: string,
    options?: { user?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<KmsReply>;
  /** The audit log's lines written so far (call after `server.close()` for all of them). */
  auditLines(): string[];
  /** Waits (bounded) until an audit line matches, and returns it. */
  waitForAudit(pattern: RegExp): Promise<string>;
}

export async function startTestKms(options: KmsServerOptions = {}): Promise<TestKms> {
  const dir = mkdtempSync(join(tmpdir(), 'kms-test-'));
  let server: KmsServer;
  try {
    server = await createKmsServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: join(dir, 'data'),
      scrypt: { logN: 10, r: 8, p: 1 },
      ...options,
      site: { 'hadoop.kms.audit.aggregation.window.ms': '600000', ...options.site },
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const kms: TestKms = {
    server,
    dir,
    call(method, path, opts = {}) {
      let url = path;
      if (opts.user !== undefined)
        url += `${url.includes('?') ? '&' : '?'}user.name=${encodeURIComponent(opts.user)}`;
      const payload = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
      return server.app.inject({
        method,
        url,
        headers: {
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
          ...opts.headers,
        },
        ...(payload !== undefined ? { payload } : {}),
      });
    },
    auditLines() {
      try {
        return readFileSync(server.settings.audit.file, 'utf8')
          .split('\n')
          .filter((l) => l !== '');
      } catch {
        return [];
      }
    },
    waitForAudit(pattern) {
      return waitFor(`an audit line matching ${pattern}`, () =>
        kms.auditLines().find((l) => pattern.test(l)),
      );
    },
    async [Symbol.asyncDispose]() {
      try {
        await server.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return kms;
}

/** The RemoteException of an error response. */
export function remote(res: KmsReply): RemoteExceptionBody {
  return remoteExceptionOf(res.body);
}

/**
 * A failed delegation-token operation as Hadoop's authentication filter answers it: the reason in
 * the HTTP status line and an empty body (no RemoteException, no content type), which is what
 * Hadoop's own client reads the reason from.
 */
export function statusLineAnswer(res: KmsReply): {
  status: number;
  reason: string;
  body: string;
  contentType: string | undefined;
} {
  const type = res.headers['content-type'];
  return {
    status: res.statusCode,
    reason: res.statusMessage,
    body: res.body,
    contentType: type === undefined ? undefined : String(type),
  };
}
