// The fastpath-key command, run as a separate process (bin/fastpath-key.js, no build needed)
// against a server that speaks the KMS wire protocol.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KmsDelegationToken } from '../src/index.js';
import { startFakeKms } from './support/fake-kms-server.js';
import type { FakeKms } from './support/fake-kms-server.js';
import { startRealKms } from './support/real-kms.js';
import { runFastpathKey } from './support/run-fastpath-key.js';

// Each run starts Node and tsx: allow for a slow, shared machine.
jest.setTimeout(120_000);

describe('fastpath-key', () => {
  let kms: FakeKms;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    kms = await startFakeKms({ deniedUsers: ['mallory'] });
    dir = mkdtempSync(join(tmpdir(), 'fastpath-key-'));
    env = { FASTPATH_KMS_URL: kms.url, FASTPATH_KMS_USER: 'alice' };
  });
  afterAll(async () => {
    await kms.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, lists, rolls and deletes keys like hadoop key', async () => {
    const created = await runFastpathKey(
      [
        'create',
        'k1',
        '-cipher',
        'AES/CTR/NoPadding',
        '-size',
        '256',
        '-description',
        'first key',
        '-attr',
        'a=1',
        '--attr',
        'b = 2',
      ],
      { env },
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toContain(
      'k1 has been successfully created with options cipher=AES/CTR/NoPadding, length=256',
    );
    expect(created.stdout).toContain(`${kms.url} has been updated.`);
    expect(JSON.parse(kms.requestsTo('POST', '/keys')[0]?.body ?? '')).toEqual({
      name: 'k1',
      cipher: 'AES/CTR/NoPadding',
      length: 256,
      description: 'first key',
      attributes: { a: '1', b: '2' },
    });
    expect(kms.lastRequest.query.get('user.name')).toBe('alice');
    // Key material is never printed.
    const material = kms.keys.get('k1')?.versions[0] as Buffer;
    expect(created.stdout).not.toContain(material.toString('base64url'));

    const rolled = await runFastpathKey(['roll', 'k1', '--json'], { env });
    expect(rolled.code).toBe(0);
    expect(JSON.parse(rolled.stdout)).toEqual({ name: 'k1', versionName: 'k1@1' });
    expect(rolled.stdout).not.toContain((kms.keys.get('k1')?.versions[1] as Buffer).toString('base64url'));

    const listed = await runFastpathKey(['list'], { env });
    expect(listed).toMatchObject({ code: 0, stdout: `Listing keys for KeyProvider: ${kms.url}\nk1\n` });

    const detailed = await runFastpathKey(['list', '-metadata'], { env });
    expect(detailed.code).toBe(0);
    expect(detailed.stdout).toMatch(
      /^k1 : cipher: AES\/CTR\/NoPadding, length: 256, description: first key, created: \d{4}-.*, version: 2, attributes: \[a=1, b=2\]$/m,
    );

    const asJson = await runFastpathKey(['list', '--metadata', '--json'], { env });
    expect(JSON.parse(asJson.stdout)).toEqual([
      expect.objectContaining({ name: 'k1', cipher: 'AES/CTR/NoPadding', length: 256, versions: 2 }),
    ]);

    const declined = await runFastpathKey(['delete', 'k1'], { env, input: 'n\n' });
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain('You are about to DELETE all versions of key k1');
    expect(declined.stderr).toContain('Nothing has been deleted.');
    expect(kms.keys.has('k1')).toBe(true);

    const confirmed = await runFastpathKey(['delete', 'k1'], { env, input: 'Y\n' });
    expect(confirmed.code).toBe(0);
    expect(confirmed.stdout).toContain('k1 has been successfully deleted.');
    expect(kms.keys.has('k1')).toBe(false);

    await runFastpathKey(['create', 'k2', '--json'], { env });
    const forced = await runFastpathKey(['delete', 'k2', '-f', '--json'], { env });
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toEqual({ name: 'k2', deleted: true });
    expect(await runFastpathKey(['list', '--json'], { env })).toMatchObject({ code: 0, stdout: '[]\n' });
  });

  it('gets, renews and cancels delegation tokens', async () => {
    const got = await runFastpathKey(['token', 'get', '-renewer', 'yarn', '--json'], { env });
    expect(got.code).toBe(0);
    const answer = JSON.parse(got.stdout) as Record<string, unknown>;
    expect(answer).toMatchObject({ kind: 'kms-dt', owner: 'alice', renewer: 'yarn' });
    const token = KmsDelegationToken.fromUrlString(answer['urlString'] as string);
    expect(token.renewer).toBe('yarn');

    // Only the renewer may renew.
    const wrongRenewer = await runFastpathKey(['token', 'renew', token.toUrlString()], { env });
    expect(wrongRenewer.code).toBe(1);
    expect(wrongRenewer.stderr).toContain('[ERR_KMS_AUTHENTICATION_FAILED]');
    expect(wrongRenewer.stderr).toContain('non-matching renewer');
    const renewed = await runFastpathKey(
      ['token', 'renew', token.toUrlString(), '--user', 'yarn', '--json'],
      { env },
    );
    expect(renewed.code).toBe(0);
    expect((JSON.parse(renewed.stdout) as { expiryMs: number }).expiryMs).toBeGreaterThan(Date.now());

    // The token authenticates key commands, read from a file; a cancelled one no longer does.
    const file = join(dir, 'token');
    writeFileSync(file, `${token.toUrlString()}\n`);
    const asToken = await runFastpathKey(['create', 'by-token', '--token-file', file], {
      env: { FASTPATH_KMS_URL: kms.url },
    });
    expect(asToken.code).toBe(0);
    expect(kms.lastRequest.headers['x-hadoop-delegation-token']).toBe(token.toUrlString());

    const cancelled = await runFastpathKey(['token', 'cancel'], {
      env: { ...env, FASTPATH_KMS_TOKEN: token.toUrlString() },
    });
    expect(cancelled).toMatchObject({ code: 0 });
    expect(cancelled.stdout).toBe(`Token cancelled: ${String(token)}.\n`);
    const afterCancel = await runFastpathKey(['list', '--token-file', file, '--json'], { env });
    expect(afterCancel.code).toBe(1);
    expect(JSON.parse(afterCancel.stderr)).toMatchObject({
      error: {
        code: 'ERR_KMS_AUTHENTICATION_FAILED',
        status: 403,
        exception: 'AuthenticationException',
        retriable: false,
      },
    });
    const cancelAgain = await runFastpathKey(['token', 'cancel', token.toUrlString()], { env });
    expect(cancelAgain.code).toBe(1);
    expect(cancelAgain.stderr).toContain('[ERR_KMS_TOKEN_CANCEL_FAILED]');
    for (const run of [wrongRenewer, renewed, cancelled, afterCancel, cancelAgain]) {
      expect(run.stdout + run.stderr).not.toContain(token.toUrlString());
    }
  });

  it('writes a token to an owner-only file with -output, and prints it otherwise', async () => {
    const file = join(dir, 'saved-token');
    const saved = await runFastpathKey(
      ['token', 'get', '-output', file, '--provider', kms.url.replace('http://', 'kms://http@')],
      {
        env: { FASTPATH_KMS_USER: 'alice' },
      },
    );
    expect(saved.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = KmsDelegationToken.fromUrlString(readFileSync(file, 'utf8'));
    expect(saved.stdout).toContain('Token kind: kms-dt');
    expect(saved.stdout).toContain('Owner: alice');
    expect(saved.stdout).toContain(`Token written to ${file}`);
    expect(saved.stdout).not.toContain(token.toUrlString());

    const shown = await runFastpathKey(['token', 'get'], { env });
    expect(shown.code).toBe(0);
    const urlString = /^URL string: (\S+)$/m.exec(shown.stdout)?.[1] as string;
    expect(KmsDelegationToken.fromUrlString(urlString).owner).toBe('alice');
  });

  it('explains failures and exits with 1, or 2 for usage errors', async () => {
    const denied = await runFastpathKey(['list'], { env: { ...env, FASTPATH_KMS_USER: 'mallory' } });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("User:mallory not allowed to do 'GET_KEYS'");
    expect(denied.stderr).toContain('[ERR_KMS_ACCESS_DENIED]');
    expect(denied.stderr).toContain('kms-acls.xml');

    const missing = await runFastpathKey(['roll', 'nope', '--user', 'bob'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('[ERR_KMS_KEY_NOT_FOUND]');
    expect(kms.lastRequest.query.get('user.name')).toBe('bob');

    const usage = await runFastpathKey(['create'], { env });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('create needs exactly one key name');
  });
});

describe('fastpath-key against @fastpath/kms-server', () => {
  it('creates, lists, rolls and deletes a key, and gets a token', async () => {
    await using kms = await startRealKms();
    const env = { FASTPATH_KMS_URL: kms.url, FASTPATH_KMS_USER: 'alice' };
    const created = await runFastpathKey(['create', 'k1', '-size', '256', '-description', 'first'], { env });
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const rolled = await runFastpathKey(['roll', 'k1', '--json'], { env });
    expect(JSON.parse(rolled.stdout)).toEqual({ name: 'k1', versionName: 'k1@1' });
    const listed = await runFastpathKey(['list', '-metadata', '--json'], { env });
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        name: 'k1',
        cipher: 'AES/CTR/NoPadding',
        length: 256,
        description: 'first',
        versions: 2,
        attributes: { 'key.acl.name': 'k1' },
      }),
    ]);
    const token = await runFastpathKey(['token', 'get', '--json'], { env });
    expect(JSON.parse(token.stdout)).toMatchObject({ kind: 'kms-dt', owner: 'alice', renewer: 'alice' });
    const deleted = await runFastpathKey(['delete', 'k1', '-f'], { env });
    expect(deleted.code).toBe(0);
    expect(await kms.as('alice').getKeyNames()).toEqual([]);
    const missing = await runFastpathKey(['roll', 'k1'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('[ERR_KMS_KEY_NOT_FOUND]');
  });
});
