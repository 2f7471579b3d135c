import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import { Redacted } from '@fastpath/core';
import { FileKeyStore } from '../src/internal/keystore/file-key-store.js';
import { GENERATED_PASSWORD_FILE } from '../src/internal/keystore/keystore-password.js';
import { KMS_SERVER_VERSION } from '../src/internal/version.js';
import { http } from './support/http.js';
import { buildInfoOf, jsonObjectOf, tokenUrlOf } from './support/kms-json.js';
import { PACKAGE_DIR } from './support/paths.js';
import { startTestKms, type TestKms } from './support/test-kms.js';
import { waitFor } from '@fastpath/test-support';

const readPassword = (kms: TestKms): Redacted<Buffer> =>
  new Redacted(
    Buffer.from(readFileSync(join(kms.server.settings.dataDir, GENERATED_PASSWORD_FILE), 'utf8').trim()),
  );

describe('operations', () => {
  let kms: TestKms | undefined;
  afterEach(async () => {
    await kms?.[Symbol.asyncDispose]();
    kms = undefined;
  });

  it('exposes Prometheus metrics: requests and latency per operation, token stages, locks, event-loop delay', async () => {
    kms = await startTestKms();
    await kms.call('POST', '/kms/v1/keys', { user: 'a', body: { name: 'k' } });
    await kms.call('GET', '/kms/v1/key/k/_eek?eek_op=generate', { user: 'a' });
    await kms.call('GET', '/kms/v1/?op=GETDELEGATIONTOKEN', { user: 'a' });
    const urlString = tokenUrlOf(
      (await kms.call('GET', '/kms/v1/?op=GETDELEGATIONTOKEN', { user: 'a' })).json(),
    );
    await kms.call('GET', `/kms/v1/keys/names?delegation=${urlString}`);
    await kms.call('GET', '/kms/v1/keys/names');
    const res = await kms.call('GET', '/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.body;
    expect(text).toMatch(/kms_requests_total\{op="CREATE_KEY",status="201"\} 1/);
    expect(text).toMatch(/kms_requests_total\{op="GETDELEGATIONTOKEN",status="200"\} 2/);
    expect(text).toMatch(/kms_requests_total\{op="KMS",status="401"\} 1/);
    expect(text).toMatch(/kms_request_duration_seconds_count\{op="GENERATE_EEK"\} 1/);
    expect(text).toMatch(/token_manager_create_allocate_seconds_count 2/);
    expect(text).toMatch(/token_manager_create_prepare_seconds_count 2/);
    expect(text).toMatch(/token_manager_verify_seconds_count 1/);
    expect(text).toMatch(/core_lock_wait_seconds_count\{lock="keystore",mode="exclusive"\} 1/);
    expect(text).toMatch(/core_lock_wait_seconds_count\{lock="kms-tokens-global",mode="write"\} \d+/);
    expect(text).toMatch(/kms_event_loop_delay_seconds\{quantile="0.99"\}/);
    expect(text).toMatch(
      /kms_build_info\{version="[^"]+",token_manager="memory",creation_locking="staged"\} 1/,
    );
    expect(text).toMatch(/process_cpu_user_seconds_total/);
  });

  it('reports health and build information without authentication', async () => {
    kms = await startTestKms({ site: { 'fastpath.kms.token.creation.locking': 'global' } });
    const health = await kms.call('GET', '/health');
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'ok', keys: 0, tokenManager: 'memory' });
    const info = (await kms.call('GET', '/build-info')).json();
    expect(info).toMatchObject({
      name: '@fastpath/kms-server',
      version: KMS_SERVER_VERSION,
      node: process.version,
      pid: process.pid,
      worker: null,
      workers: 1,
      tokenManager: {
        implementation: 'memory',
        creationLocking: 'global',
        persistCoalescing: null,
        kind: 'kms-dt',
        zookeeper: null,
      },
      tls: false,
    });
    expect(jsonObjectOf(JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')))['version']).toBe(
      KMS_SERVER_VERSION,
    );
  });

  it('serves HTTPS from PEM certificate and key files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kms-tls-'));
    try {
      const certFile = join(dir, 'cert.pem');
      const keyFile = join(dir, 'key.pem');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          keyFile,
          '-out',
          certFile,
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=IP:127.0.0.1,DNS:localhost',
        ],
        { stdio: 'ignore' },
      );
      kms = await startTestKms({ tls: { certFile, keyFile } });
      const url = await kms.server.listen();
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const ca = readFileSync(certFile);
      const res = await http(`${url}/kms/v1/keys?user.name=alice`, {
        method: 'POST',
        body: { name: 'k' },
        ca,
      });
      expect(res.status).toBe(201);
      expect(String(res.headers['set-cookie'])).toContain('; Secure; HttpOnly');
      expect(buildInfoOf((await http(`${url}/build-info`, { ca })).json()).tls).toBe(true);
      await expect(http(`${url}/health`)).rejects.toThrow(/self.signed|certificate/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await expect(
      startTestKms({ tls: { certFile: '/nonexistent.pem', keyFile: '/nonexistent.pem' } }),
    ).rejects.toMatchObject({
      code: 'ERR_KMS_CONFIG',
      property: 'fastpath.kms.ssl.certificate.file',
    });
  });

  it('shuts down gracefully: a request in flight completes, the keystore stays whole, new requests are refused', async () => {
    kms = await startTestKms();
    const url = await kms.server.listen();
    const port = kms.server.address?.port as number;
    // A create whose body is still arriving when close() starts.
    let answer: { status: number; body: string } | undefined;
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/kms/v1/keys?user.name=a',
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => (answer = { status: res.statusCode ?? 0, body }));
      },
    );
    req.write('{"name":');
    // Two more connections whose requests are still arriving (headers not finished).
    const pending = [
      'GET /health HTTP/1.1\r\nHost: x\r\n',
      'GET /kms/v1/keys/names?user.name=a HTTP/1.1\r\nHost: x\r\n',
    ].map((head) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
      socket.write(head);
      return { socket, closed };
    });
    await waitFor(
      'the connections to be accepted',
      () =>
        new Promise<boolean>((resolve) => kms?.server.app.server.getConnections((_e, n) => resolve(n >= 3))),
    );
    const closing = kms.server.close();
    await waitFor('the listener to close', () => kms?.server.app.server.listening === false);
    await expect(http(`${url}/health`, { timeoutMs: 2000 })).rejects.toThrow();
    // Requests completed now are refused with 503, and /health says why.
    for (const { socket } of pending) socket.write('\r\n');
    const [health, refused] = await Promise.all(pending.map((p) => p.closed));
    expect(health).toMatch(/^HTTP\/1\.1 503 [^]*"status":"closing"/);
    expect(refused).toMatch(/^HTTP\/1\.1 503 [^]*retry-after: 1[^]*"message":"The KMS is shutting down"/);
    req.end('"late"}');
    await closing;
    expect(answer).toEqual({ status: 201, body: expect.stringContaining('"versionName":"late@0"') });
    const store = await FileKeyStore.open({
      file: kms.server.settings.keystore.file,
      password: readPassword(kms),
      create: false,
    });
    expect([...store.state.keys.keys()]).toEqual(['late']);
    await store.close();
  });
});
