// The behaviours of 21-42 that the fastpath-key command covers (key create, roll, delete, list,
// list -metadata, invalidatecache; token get, renew, cancel; --doas), each run as its own
// process against one server per file: @fastpath/kms-server (fastpath-key-behaviours
// .integration.test.ts) and Apache Hadoop's own KMS (fastpath-key-behaviours-hadoop
// .integration.test.ts). The behaviours the command cannot reach are left to the client suite
// (kms-behaviours.ts): generate/decrypt/reencrypt (24-26's EEK parts, 30, 42), key material
// (28's SET_KEY_MATERIAL part), ACL reload (29), token expiry (35's second half; one server
// for the file keeps real-time lifetimes), a request without any identity (36, 38: the command
// always sends a user name or a token), cookies (39).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redacted } from '@fastpath/core';
import { Token } from '@fastpath/hadoop-common';
import { KmsDelegationToken } from '../../src/index.js';
import { operationAcls } from '@fastpath/test-support';
import { runFastpathKey, type ProcessResult } from './run-fastpath-key.js';

/** One server for the whole suite, started with exactly these kms-acls.xml and kms-site.xml entries. */
export interface KeyShellTarget {
  readonly server: 'fastpath' | 'hadoop';
  start(options: { acls: Record<string, string>; site: Record<string, string> }): Promise<{
    /** `http://127.0.0.1:<port>/kms`. */
    url: string;
    close(): Promise<void>;
  }>;
}

// Every user of the suite but `nobody` (27) is in every operation ACL, except that `creator` may
// not GET (28); foo1 is there so that only the proxy-user rule can refuse client acting as foo1 (40).
const USERS = ['alice', 'bob', 'admin', 'client', 'client1', 'creator', 'foo', 'bar', 'foo1'];
const ACLS: Record<string, string> = {
  ...operationAcls((op) => (op === 'GET' ? USERS.filter((u) => u !== 'creator') : USERS).join(',')),
  // 31: key ACLs of the key `managed`, a whitelist, and defaults for every other key.
  'key.acl.managed.MANAGEMENT': 'alice',
  'key.acl.managed.READ': 'alice',
  'whitelist.key.acl.MANAGEMENT': 'admin',
  'default.key.acl.MANAGEMENT': '*',
  'default.key.acl.READ': '*',
  'default.key.acl.GENERATE_EEK': '*',
  'default.key.acl.DECRYPT_EEK': '*',
};
// 40: client may act as foo and bar.
const SITE = { 'hadoop.kms.proxyuser.client.users': 'foo,bar', 'hadoop.kms.proxyuser.client.hosts': '*' };

/** What `fastpath-key --json` writes to stderr for a failed operation, under `error`. */
interface ShellError {
  code: string;
  message: string;
  status: number | null;
  exception: string | null;
  retriable: boolean;
}

export function defineKeyShellBehaviours(target: KeyShellTarget): void {
  const hadoop = target.server === 'hadoop';
  let server: { url: string; close(): Promise<void> };
  let dir: string;
  beforeAll(async () => {
    server = await target.start({ acls: ACLS, site: SITE });
    dir = mkdtempSync(join(tmpdir(), 'fastpath-key-behaviours-'));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  /** fastpath-key `args` as `user` against the suite's server. */
  const key = (user: string, ...args: string[]): Promise<ProcessResult> =>
    runFastpathKey(args, { env: { FASTPATH_KMS_URL: server.url, FASTPATH_KMS_USER: user } });
  const json = <T>(run: ProcessResult): T => {
    expect(run).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(run.stdout) as T;
  };
  const failed = (run: ProcessResult): ShellError => {
    expect(run.code).toBe(1);
    return (JSON.parse(run.stderr) as { error: ShellError }).error;
  };
  const names = async (user: string): Promise<string[]> => json<string[]>(await key(user, 'list', '--json'));

  // Runs first: the server is fresh.
  it('21: a fresh KMS lists no key names and no metadata', async () => {
    expect(await key('alice', 'list')).toMatchObject({
      code: 0,
      stdout: `Listing keys for KeyProvider: ${server.url}\n`,
    });
    expect(json(await key('alice', 'list', '-metadata', '--json'))).toEqual([]);
  });

  it('22, 23: create makes k1@0 (201 with Location); roll adds k1@1 and makes it current', async () => {
    const created = json<{ name: string; versionName: string; location: string }>(
      await key(
        'alice',
        'create',
        'k1',
        '-cipher',
        'AES/CTR/NoPadding',
        '-size',
        '128',
        '-description',
        'l1',
        '--json',
      ),
    );
    // Hadoop 3.4.2 builds Location by appending to the request's path (an address that serves
    // nothing); fastpath answers the key's own address.
    expect(created).toEqual({
      name: 'k1',
      versionName: 'k1@0',
      location: hadoop ? `${server.url}/v1/keys/v1/key/k1` : `${server.url}/v1/key/k1`,
    });
    const rolled = await key('alice', 'roll', 'k1');
    expect(rolled.code).toBe(0);
    expect(rolled.stdout).toContain('k1 has been successfully rolled; the current version is k1@1.');
    const listed = await key('alice', 'list', '-metadata');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      /^k1 : cipher: AES\/CTR\/NoPadding, length: 128, description: l1, created: \d{4}-\d\d-\d\dT.*, version: 2, attributes: \[key\.acl\.name=k1\]$/m,
    );
    const [meta] = json<Array<Record<string, unknown>>>(await key('alice', 'list', '-metadata', '--json'));
    expect(meta).toMatchObject({
      name: 'k1',
      cipher: 'AES/CTR/NoPadding',
      length: 128,
      description: 'l1',
      versions: 2,
      attributes: { 'key.acl.name': 'k1' },
    });
    expect(meta?.['created']).toBeLessThanOrEqual(Date.now());
  });

  it('32: invalidatecache of a key answers success', async () => {
    const done = await key('alice', 'invalidatecache', 'k1');
    expect(done).toMatchObject({ code: 0, stdout: 'k1 has been successfully invalidated.\n' });
  });

  it('26: after delete the key is gone: not listed, not rollable, not deletable again', async () => {
    await key('alice', 'create', 'k26');
    const deleted = await key('alice', 'delete', 'k26', '-f');
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain('k26 has been successfully deleted.');
    expect(await names('alice')).not.toContain('k26');
    const roll = await key('alice', 'roll', 'k26');
    expect(roll.code).toBe(1);
    // A rollover or a delete of a missing key: fastpath goes beyond Hadoop with a 404; Hadoop's
    // KMS answers 500 with an IOException. The command reads both as a missing key.
    expect(roll.stderr).toContain(
      hadoop
        ? "Can't find Metadata for key k26 (HTTP 500, IOException) [ERR_KMS_KEY_NOT_FOUND]"
        : 'Key k26 not found (HTTP 404, IOException) [ERR_KMS_KEY_NOT_FOUND]',
    );
    expect(failed(await key('alice', 'delete', 'k26', '-f', '--json')).code).toBe('ERR_KMS_KEY_NOT_FOUND');
  });

  it('27: a user in no operation ACL is refused every command with 403 AuthorizationException', async () => {
    const denials: Array<[string[], string]> = [
      [['create', 'k27'], "'CREATE_KEY' on 'k27'"],
      [['roll', 'k1'], "'ROLL_NEW_VERSION' on 'k1'"],
      [['delete', 'k1', '-f'], "'DELETE_KEY' on 'k1'"],
    ];
    for (const [args, what] of denials) {
      const run = await key('nobody', ...args);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `User:nobody not allowed to do ${what} (HTTP 403, AuthorizationException) [ERR_KMS_ACCESS_DENIED]`,
      );
      expect(run.stderr).toContain('kms-acls.xml');
    }
    const listDenied = failed(await key('nobody', 'list', '--json'));
    expect(listDenied).toMatchObject({
      code: 'ERR_KMS_ACCESS_DENIED',
      status: 403,
      exception: 'AuthorizationException',
      retriable: false,
    });
    expect(listDenied.message).toContain("User:nobody not allowed to do 'GET_KEYS'");
    // list -metadata asks for the names first, which nobody may not.
    expect(failed(await key('nobody', 'list', '-metadata', '--json')).code).toBe('ERR_KMS_ACCESS_DENIED');
    expect(await names('alice')).toEqual(['k1']);
  });

  it('28: CREATE and ROLLOVER without GET succeed (the answer carries no material)', async () => {
    expect(json(await key('creator', 'create', 'k28', '--json'))).toMatchObject({ versionName: 'k28@0' });
    expect(json(await key('creator', 'roll', 'k28', '--json'))).toEqual({
      name: 'k28',
      versionName: 'k28@1',
    });
    expect(json(await key('creator', 'delete', 'k28', '-f', '--json'))).toEqual({
      name: 'k28',
      deleted: true,
    });
  });

  it('31: key ACLs: MANAGEMENT of a key, the whitelist, and defaults for keys without their own', async () => {
    const bobCreates = await key('bob', 'create', 'managed');
    expect(bobCreates.code).toBe(1);
    expect(bobCreates.stderr).toContain('User [bob] is not authorized to create key !!');
    expect(bobCreates.stderr).toContain('[ERR_KMS_ACCESS_DENIED]');
    expect(json(await key('alice', 'create', 'managed', '--json'))).toMatchObject({
      versionName: 'managed@0',
    });
    expect(failed(await key('bob', 'roll', 'managed', '--json')).code).toBe('ERR_KMS_ACCESS_DENIED');
    // The whitelist's MANAGEMENT lets admin roll any key.
    expect(json(await key('admin', 'roll', 'managed', '--json'))).toEqual({
      name: 'managed',
      versionName: 'managed@1',
    });
    expect(failed(await key('bob', 'delete', 'managed', '-f', '--json')).code).toBe('ERR_KMS_ACCESS_DENIED');
    // Keys without their own ACLs take the defaults: bob manages those.
    expect(json(await key('bob', 'create', 'plain', '--json'))).toMatchObject({ versionName: 'plain@0' });
    expect(json(await key('bob', 'delete', 'plain', '-f', '--json'))).toMatchObject({ deleted: true });
    expect(json(await key('alice', 'delete', 'managed', '-f', '--json'))).toMatchObject({ deleted: true });
  });

  it('33, 34: a kms-dt token for renewer client1: only client1 renews it, anyone holding it cancels it', async () => {
    const got = json<{ kind: string; owner: string; renewer: string; realUser: string; urlString: string }>(
      await key('client', 'token', 'get', '-renewer', 'client1', '--json'),
    );
    expect(got).toMatchObject({ kind: 'kms-dt', owner: 'client', renewer: 'client1', realUser: '' });
    const token = got.urlString;
    // Both refuse with 403 and the reason in the status line, as Hadoop's authentication filter does.
    const refused = failed(await key('client', 'token', 'renew', token, '--json'));
    expect(refused).toMatchObject({ code: 'ERR_KMS_AUTHENTICATION_FAILED', status: 403 });
    expect(refused.message).toContain('with non-matching renewer client1');
    const renewed = json<{ expiryMs: number }>(await key('client1', 'token', 'renew', token, '--json'));
    expect(renewed.expiryMs).toBeGreaterThan(Date.now());

    // 35's first half: the token authenticates key commands as its owner (the user name given
    // beside it is not sent; nobody alone is refused, see 27).
    const file = join(dir, 'token');
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    expect(failed(await key('nobody', 'list', '--json')).code).toBe('ERR_KMS_ACCESS_DENIED');
    expect(json(await key('nobody', 'list', '--token-file', file, '--json'))).toEqual(['k1']);

    const cancelled = await key('bob', 'token', 'cancel', token);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toMatch(
      /^Token cancelled: kms-dt token of client \(renewer client1, sequence number \d+\)\.$/m,
    );
    expect(failed(await key('client1', 'token', 'renew', token, '--json'))).toMatchObject({
      code: 'ERR_KMS_AUTHENTICATION_FAILED',
      status: 403,
    });
    expect(failed(await key('nobody', 'list', '--token-file', file, '--json'))).toMatchObject({
      code: 'ERR_KMS_AUTHENTICATION_FAILED',
      status: 403,
    });
    // The token is a credential: never printed back.
    expect(cancelled.stdout + cancelled.stderr).not.toContain(token);
  });

  it('37: cancelling a token that is not there (a forged password) is 404; the real one is untouched', async () => {
    const real = KmsDelegationToken.fromUrlString(
      json<{ urlString: string }>(await key('client', 'token', 'get', '--json')).urlString,
    );
    const forged = new Token({
      identifier: real.identifier,
      password: new Redacted(randomBytes(20)),
      kind: real.kind,
      service: real.service,
    }).toUrlString();
    const run = await key('client', 'token', 'cancel', forged, '--json');
    expect(failed(run)).toMatchObject({ code: 'ERR_KMS_TOKEN_CANCEL_FAILED', status: 404 });
    expect(json(await key('nobody', 'list', '--token', real.toUrlString(), '--json'))).toEqual(['k1']);
  });

  it('40: proxy user client may act as foo (and the token is foo’s, real user client), not as foo1', async () => {
    const created = json<{ versionName: string }>(
      await key('client', 'create', 'k40', '--doas', 'foo', '--json'),
    );
    expect(created.versionName).toBe('k40@0');
    const token = await key('client', 'token', 'get', '--doas', 'foo');
    expect(token.code).toBe(0);
    expect(token.stdout).toContain('Owner: foo (real user client)');
    // foo1 is in every operation ACL: only the proxy-user rule refuses this.
    const denied = failed(await key('client', 'list', '--doas', 'foo1', '--json'));
    expect(denied).toMatchObject({ code: 'ERR_KMS_ACCESS_DENIED', status: 403 });
    expect(json(await key('foo1', 'list', '--json'))).toContain('k40');
    expect(json(await key('client', 'delete', 'k40', '-f', '--doas', 'foo', '--json'))).toMatchObject({
      deleted: true,
    });
  });

  it('41: key names with special characters work (the command URL-encodes them)', async () => {
    const name = 'key %^[\n{]}|"<>\\';
    expect(json(await key('alice', 'create', name, '--json'))).toMatchObject({
      name,
      versionName: `${name}@0`,
    });
    expect(await names('alice')).toContain(name);
    expect(json(await key('alice', 'roll', name, '--json'))).toEqual({ name, versionName: `${name}@1` });
    const metadata = json<Array<{ name: string; versions: number }>>(
      await key('alice', 'list', '-metadata', '--json'),
    );
    expect(metadata.find((m) => m.name === name)?.versions).toBe(2);
    expect((await key('alice', 'invalidatecache', name)).code).toBe(0);
    expect(json(await key('alice', 'delete', name, '-f', '--json'))).toEqual({ name, deleted: true });
    expect(await names('alice')).toEqual(['k1']);
  });
}
