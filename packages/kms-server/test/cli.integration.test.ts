import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redacted } from '@fastpath/core';
import { FileKeyStore } from '../src/internal/keystore/file-key-store.js';
import { startKmsProcess } from '../src/testing.js';
import { http } from './support/http.js';
import { keytabBytes } from './support/kerberos-bytes.js';
import { PACKAGE_DIR } from './support/paths.js';

function runBin(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(PACKAGE_DIR, 'bin/fastpath-kms.js'), ...args], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('fastpath-kms command', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kms-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('`fastpath-kms` with no arguments starts a working KMS with a generated owner-only password file', async () => {
    // Only the environment differs from a bare run: HOME (the default data directory) and a free
    // loopback port instead of 9600, which the machine may be using.
    const home = join(dir, 'home');
    const child = spawn(process.execPath, [join(PACKAGE_DIR, 'bin/fastpath-kms.js')], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, HOME: home, FASTPATH_KMS_PORT: '0', FASTPATH_KMS_HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let log = '';
    child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.on(
          'message',
          (m: { type?: string; url?: string }) => m.type === 'fastpath-kms:ready' && resolve(m.url as string),
        );
        void exited.then(() => reject(new Error(log)));
      });
      const passwordFile = join(home, '.fastpath-kms', 'kms.keystore.password');
      expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
      expect(log).toContain(`created a random one in ${passwordFile}`);
      expect(log).not.toContain(readFileSync(passwordFile, 'utf8').trim());
      const created = await http(`${url}/kms/v1/keys?user.name=alice`, {
        method: 'POST',
        body: { name: 'k1' },
      });
      expect(created.status).toBe(201);
      expect((await http(`${url}/kms/v1/keys/names?user.name=alice`)).json()).toEqual(['k1']);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(log).toContain('KMS stopped');
  }, 60_000);

  it('keeps keys across a restart, and refuses a wrong password with a clear message', async () => {
    const dataDir = join(dir, 'data');
    const passwordFile = join(dir, 'pw');
    writeFileSync(passwordFile, 'correct horse\n');
    const first = await startKmsProcess({ dataDir, args: ['--keystore-password-file', passwordFile] });
    await http(`${first.url}/kms/v1/keys?user.name=a`, { method: 'POST', body: { name: 'kept' } });
    expect((await first.stop()).code).toBe(0);
    const second = await startKmsProcess({
      dataDir,
      env: { FASTPATH_KMS_KEYSTORE_PASSWORD: 'correct horse' },
    });
    expect((await http(`${second.url}/kms/v1/keys/names?user.name=a`)).json()).toEqual(['kept']);
    await second.stop();
    const wrong = await runBin(['--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
      FASTPATH_KMS_KEYSTORE_PASSWORD: 'battery staple',
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /the password does not open the keystore .*kms\.keystore .*\(ERR_KMS_KEYSTORE_PASSWORD\)/,
    );
    expect(wrong.stderr).not.toContain('battery staple');
  }, 90_000);

  it('refuses invalid settings naming the property, and --workers without the ZooKeeper token store', async () => {
    const bad = await runBin(['--port', 'ninety', '--data-dir', dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid value of hadoop\.kms\.http\.port \(command line\)/);
    writeFileSync(
      join(dir, 'kms-site.xml'),
      '<configuration><property><name>hadoop.kms.ssl.enabled</name><value>maybe</value></property></configuration>',
    );
    const site = await runBin(['--config-dir', dir, '--data-dir', dir]);
    expect(site.code).toBe(2);
    expect(site.stderr).toContain(`invalid value of hadoop.kms.ssl.enabled (${join(dir, 'kms-site.xml')}:1)`);
    const workers = await runBin(['--workers', '2', '--data-dir', dir, '--port', '0']);
    expect(workers.code).toBe(2);
    expect(workers.stderr).toMatch(/2 workers need the ZooKeeper token store/);
    const unknown = await runBin(['--prot', '1']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown option "--prot"');
    const help = await runBin(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('fastpath-kms keystore create');
  }, 60_000);

  /** Starts fastpath-kms in Kerberos mode with these kms-site.xml properties: a keytab holding HTTP/otherhost only. */
  function kerberosStart(): {
    data: string;
    keytab: string;
    krb5: string;
    start: (props: Record<string, string>, env?: Record<string, string>) => ReturnType<typeof runBin>;
  } {
    const data = join(dir, 'data');
    const krb5 = join(dir, 'krb5.conf');
    writeFileSync(krb5, '[libdefaults]\n default_realm = EXAMPLE.COM\n');
    const keytab = join(dir, 'http.keytab');
    writeFileSync(keytab, keytabBytes(['HTTP/otherhost@EXAMPLE.COM']));
    const start = (props: Record<string, string>, env: Record<string, string> = { KRB5_CONFIG: krb5 }) => {
      writeFileSync(
        join(dir, 'kms-site.xml'),
        `<configuration>${Object.entries({ 'hadoop.kms.authentication.type': 'kerberos', ...props })
          .map(([k, v]) => `<property><name>${k}</name><value>${v}</value></property>`)
          .join('')}</configuration>`,
      );
      return runBin(['--config-dir', dir, '--data-dir', data, '--port', '0'], env);
    };
    return { data, keytab, krb5, start };
  }
  const p = 'hadoop.kms.authentication.kerberos.';

  it('Kerberos mode: a bad keytab, principal or realm stops the start with one line, exit 1, nothing created', async () => {
    const { data, keytab, krb5, start } = kerberosStart();
    const cases: Array<[Record<string, string>, RegExp, Record<string, string>?]> = [
      [{ [`${p}keytab`]: join(dir, 'missing.keytab') }, /keytab .*missing\.keytab cannot be read: ENOENT/],
      [{ [`${p}keytab`]: krb5 }, /is not a usable Kerberos keytab/],
      [{ [`${p}keytab`]: keytab }, /principal HTTP\/localhost@EXAMPLE\.COM is not in the keytab/],
      [
        { [`${p}keytab`]: keytab, [`${p}principal`]: 'HTTP/otherhost@OTHER.COM' },
        /HTTP\/otherhost@OTHER\.COM is not in the keytab/,
      ],
      [
        { [`${p}keytab`]: keytab, [`${p}principal`]: 'HTTP/otherhost' },
        /names no realm and krb5\.conf/,
        { KRB5_CONFIG: join(dir, 'none.conf') },
      ],
    ];
    for (const [props, message, env] of cases) {
      const result = await start(props, env);
      expect({ code: result.code, lines: result.stderr.trimEnd().split('\n').length }).toEqual({
        code: 1,
        lines: 1,
      });
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toContain('(ERR_KMS_KERBEROS)');
      expect(existsSync(data)).toBe(false);
    }
  }, 60_000);

  it("Kerberos mode: _HOST as written (Hadoop's KMS takes it so) and a whitelist Hadoop refuses or that opens /kms stop the start", async () => {
    const { data, keytab, start } = kerberosStart();
    const host = await start({ [`${p}keytab`]: keytab, [`${p}principal`]: 'HTTP/_HOST@EXAMPLE.COM' });
    expect({ code: host.code, lines: host.stderr.trimEnd().split('\n').length }).toEqual({
      code: 1,
      lines: 1,
    });
    expect(host.stderr).toMatch(
      /HTTP\/_HOST@EXAMPLE\.COM is not in the keytab .*; _HOST is taken as written, as Hadoop's KMS takes it .*\(ERR_KMS_KERBEROS\)/,
    );
    // An endpoint whitelist is a setting: one line, exit 2, before the keytab is read.
    for (const [whitelist, message] of [
      ['/jmx, /a/b', /The element of the whitelist: \/a\/b must start with '\/'/],
      ['/prom,/kms', /\/kms is the path of every KMS call/],
    ] as const) {
      const result = await start({
        [`${p}keytab`]: join(dir, 'missing.keytab'),
        [`${p}endpoint.whitelist`]: whitelist,
      });
      expect({ code: result.code, lines: result.stderr.trimEnd().split('\n').length }).toEqual({
        code: 2,
        lines: 1,
      });
      // A settings error names its property and no code.
      expect(result.stderr).toMatch(
        new RegExp(`^fastpath-kms: ${p.replace(/\./g, '\\.')}endpoint\\.whitelist: `),
      );
      expect(result.stderr).toMatch(message);
      expect(existsSync(data)).toBe(false);
    }
  }, 60_000);

  it('seen 7: a port in use, an unreadable config and a wrong password stop the start with one line and leave the data directory as it was', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const dataDir = join(dir, 'fresh');
      const busy = await runBin(['--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toBe(
        `fastpath-kms: cannot listen on 127.0.0.1:${port}: the port is already in use: stop the process using it, ` +
          'or choose another port with --port (hadoop.kms.http.port) (EADDRINUSE) (ERR_KMS_LISTEN)\n',
      );
      expect(existsSync(dataDir)).toBe(false);
      // Programmatic starts clean up the same way when listen() loses the port.
      const { createKmsServer } = await import('../src/index.js');
      const server = await createKmsServer({
        host: '127.0.0.1',
        port,
        dataDir,
        scrypt: { logN: 10, r: 8, p: 1 },
      });
      await expect(server.listen()).rejects.toMatchObject({ code: 'ERR_KMS_LISTEN', port, retriable: true });
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }

    const configDir = join(dir, 'conf');
    mkdirSync(join(configDir, 'kms-site.xml'), { recursive: true });
    const unreadable = await runBin([
      '--config-dir',
      configDir,
      '--port',
      '0',
      '--data-dir',
      join(dir, 'never'),
    ]);
    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr).toBe(
      `fastpath-kms: cannot read ${join(configDir, 'kms-site.xml')}: EISDIR: illegal operation on a directory, read; ` +
        'make it a readable file, or remove it to use the defaults\n',
    );
    expect(existsSync(join(dir, 'never'))).toBe(false);

    const dataDir = join(dir, 'data');
    expect(
      (
        await runBin(['keystore', 'create', '--data-dir', dataDir], {
          FASTPATH_KMS_KEYSTORE_PASSWORD: 'right',
        })
      ).code,
    ).toBe(0);
    const before = readdirSync(dataDir).sort();
    const wrong = await runBin(['--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
      FASTPATH_KMS_KEYSTORE_PASSWORD: 'wrong',
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^fastpath-kms: the password does not open the keystore .*\(ERR_KMS_KEYSTORE_PASSWORD\); give the password the keystore was created with/,
      ),
    ]);
    expect(readdirSync(dataDir).sort()).toEqual(before);
  }, 90_000);

  it('keystore create and rekey', async () => {
    const dataDir = join(dir, 'data');
    const created = await runBin(['keystore', 'create', '--data-dir', dataDir], {
      FASTPATH_KMS_KEYSTORE_PASSWORD: 'old-pass',
    });
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`created an empty keystore ${join(dataDir, 'kms.keystore')}`);
    const again = await runBin(['keystore', 'create', '--data-dir', dataDir], {
      FASTPATH_KMS_KEYSTORE_PASSWORD: 'old-pass',
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('ERR_KMS_KEYSTORE_EXISTS');
    writeFileSync(join(dir, 'new'), 'new-pass\n');
    const rekeyed = await runBin(
      ['keystore', 'rekey', '--data-dir', dataDir, '--new-password-file', join(dir, 'new')],
      {
        FASTPATH_KMS_KEYSTORE_PASSWORD: 'old-pass',
      },
    );
    expect(rekeyed.code).toBe(0);
    const file = join(dataDir, 'kms.keystore');
    await expect(
      FileKeyStore.open({ file, password: new Redacted(Buffer.from('old-pass')), create: false }),
    ).rejects.toMatchObject({
      code: 'ERR_KMS_KEYSTORE_PASSWORD',
    });
    await (
      await FileKeyStore.open({ file, password: new Redacted(Buffer.from('new-pass')), create: false })
    ).close();
    // With the embedded default, rekey keeps the generated password file current.
    const embedded = join(dir, 'embedded');
    expect((await runBin(['keystore', 'create', '--data-dir', embedded])).code).toBe(0);
    expect(
      (
        await runBin(['keystore', 'rekey', '--data-dir', embedded], {
          FASTPATH_KMS_KEYSTORE_NEW_PASSWORD: 'fresh',
        })
      ).code,
    ).toBe(0);
    expect(readFileSync(join(embedded, 'kms.keystore.password'), 'utf8')).toBe('fresh\n');
    const kms = await startKmsProcess({ dataDir: embedded });
    expect((await http(`${kms.url}/health`)).status).toBe(200);
    await kms.stop();
  }, 90_000);
});
