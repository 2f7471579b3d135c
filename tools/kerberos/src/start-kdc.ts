import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkInteger, InvalidOptionError } from '@fastpath/core';
import {
  forgetDirectory,
  logTail,
  pickFreePorts,
  pollUntil,
  rememberDirectory,
  runProcess,
  spawnServer,
  type ServerProcess,
} from '@fastpath/jvm-fixture';
import { renderKdcConf, renderKrb5Conf } from './internal/kerberos-config.js';
import type { AddPrincipalOptions, Kdc, KinitOptions } from './kdc.js';
import { resolveKdcOptions, type KdcOptions, type ResolvedKdcOptions } from './kdc-options.js';
import {
  KdcExitedError,
  KdcStateError,
  KdcTimeoutError,
  KerberosCommandError,
} from './kerberos-fixture-errors.js';
import { locateKerberos, type KerberosPrograms } from './locate-kerberos.js';

// Ports picked free can be taken before the KDC binds them (by another test's server): a start
// that fails that way is retried on new ports this many times.
const PORT_ATTEMPTS = 5;

/**
 * Starts a real MIT KDC for a fresh realm: a new folder under the OS temp dir with the realm's
 * krb5.conf and kdc.conf, a database created with `kdb5_util`, and `krb5kdc` in the foreground
 * on a free 127.0.0.1 port (TCP and UDP). Installs Debian's MIT Kerberos packages first when
 * they are missing and it can. The KDC never outlives the process: it is killed at exit, and by
 * a watchdog (which deletes the folder) if the process dies abruptly.
 *
 * @throws KerberosNotFoundError when MIT Kerberos is missing and cannot be installed
 * @throws KdcExitedError, KdcTimeoutError when the KDC does not serve
 * @example
 * ```ts
 * await using kdc = await startKdc();
 * const keytab = await kdc.keytab(['HTTP/localhost']);
 * const ccache = await kdc.kinit('client', { lifetimeSeconds: 60 });
 * spawn('java', [...kdc.javaOptions(), ...], { env: { ...process.env, ...kdc.env(), KRB5CCNAME: ccache } });
 * ```
 */
export async function startKdc(options: KdcOptions = {}): Promise<Kdc> {
  const settings = resolveKdcOptions(options);
  const programs = await locateKerberos({ installIfMissing: settings.installIfMissing });
  const dir = await mkdtemp(join(tmpdir(), 'fastpath-kdc-'));
  rememberDirectory(dir);
  try {
    await Promise.all(['db', 'keytabs', 'ccache', 'rcache'].map((d) => mkdir(join(dir, d), { mode: 0o700 })));
    const deadline = Date.now() + settings.startTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      const port = await pickTcpAndUdpPort();
      const realm = new RealmFiles(dir, port, settings);
      await realm.write();
      if (attempt === 1) await realm.createDatabase(programs);
      const started = await realm.startServer(programs, deadline);
      if (started !== 'port-taken') return new MitKdc(realm, started, programs, settings);
      if (attempt >= PORT_ATTEMPTS) {
        throw new KdcTimeoutError(
          `the KDC found its port taken ${attempt} times`,
          await logTail(realm.logFile),
        );
      }
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    forgetDirectory(dir);
    throw err;
  }
}

/** A port free on both TCP and UDP of 127.0.0.1 at the time of asking. */
async function pickTcpAndUdpPort(): Promise<number> {
  for (;;) {
    const [port] = await pickFreePorts(1);
    if (port !== undefined && (await udpFree(port))) return port;
  }
}

function udpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind({ address: '127.0.0.1', port, exclusive: true }, () => socket.close(() => resolve(true)));
  });
}

class RealmFiles {
  readonly krb5ConfigPath: string;
  readonly kdcConfigPath: string;
  readonly logFile: string;
  constructor(
    readonly dir: string,
    readonly port: number,
    readonly settings: ResolvedKdcOptions,
  ) {
    this.krb5ConfigPath = join(dir, 'krb5.conf');
    this.kdcConfigPath = join(dir, 'kdc.conf');
    this.logFile = join(dir, 'kdc.log');
  }

  env(): Record<string, string> {
    return {
      KRB5_CONFIG: this.krb5ConfigPath,
      KRB5_KDC_PROFILE: this.kdcConfigPath,
      KRB5RCACHEDIR: join(this.dir, 'rcache'),
    };
  }

  async write(): Promise<void> {
    const layout = {
      realm: this.settings.realm,
      dir: this.dir,
      port: this.port,
      clockSkewSeconds: this.settings.clockSkewSeconds,
      maxTicketLifetimeSeconds: this.settings.maxTicketLifetimeSeconds,
    };
    await writeFile(this.krb5ConfigPath, renderKrb5Conf(layout));
    await writeFile(this.kdcConfigPath, renderKdcConf(layout));
    await writeFile(join(this.dir, 'db', 'kadm5.acl'), '');
  }

  async createDatabase(programs: KerberosPrograms): Promise<void> {
    // The master password protects nothing outside this folder; it goes on stdin all the same.
    const master = randomBytes(24).toString('base64url');
    await runKerberos(programs.kdb5Util, ['-r', this.settings.realm, 'create', '-s'], {
      env: this.env(),
      input: `${master}\n${master}\n`,
      timeoutMs: this.settings.commandTimeoutMs,
    });
  }

  /** Spawns krb5kdc and waits until it serves; `port-taken` when its port was taken meanwhile. */
  async startServer(programs: KerberosPrograms, deadline: number): Promise<ServerProcess | 'port-taken'> {
    await writeFile(this.logFile, '');
    const server = spawnServer(programs.krb5kdc, ['-n', '-r', this.settings.realm], {
      cwd: this.dir,
      logFile: join(this.dir, 'krb5kdc.out'),
      cleanupDir: this.dir,
      env: { ...process.env, ...this.env() },
    });
    const ready = await pollUntil(
      async () => {
        const log = await readFile(this.logFile, 'utf8').catch(() => '');
        if (log.includes('commencing operation')) return 'ready' as const;
        if (/Address already in use|Cannot bind|Cannot create/i.test(log)) return 'port-taken' as const;
        return undefined;
      },
      { timeoutMs: Math.max(1, deadline - Date.now()), intervalMs: 25, stopWhen: server.exited },
    );
    if (ready === 'ready') return server;
    const tail = [await logTail(this.logFile), await logTail(join(this.dir, 'krb5kdc.out'))]
      .filter((t) => t.trim() !== '')
      .join('\n');
    await stopServer(server);
    if (ready === 'port-taken' || /Address already in use/i.test(tail)) return 'port-taken';
    const exit = server.exit();
    if (exit !== undefined) throw new KdcExitedError(exit.code, exit.signal, tail);
    throw new KdcTimeoutError('the KDC did not serve within startTimeoutMs', tail);
  }
}

async function stopServer(server: ServerProcess): Promise<void> {
  if (server.exit() !== undefined) return;
  server.signal('SIGTERM');
  // krb5kdc ends at once on SIGTERM; SIGKILL bounds the wait if it does not.
  const kill = setTimeout(() => server.signal('SIGKILL'), 5000);
  await server.exited;
  clearTimeout(kill);
}

async function runKerberos(
  program: string,
  args: readonly string[],
  options: { env: Record<string, string>; input?: string; timeoutMs: number },
): Promise<string> {
  const result = await runProcess(program, args, {
    env: { ...process.env, ...options.env },
    timeoutMs: options.timeoutMs,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
  const output = `${result.stdout}\n${result.stderr}`.trim();
  // kadmin.local reports a refused query on stderr and, in some versions, still exits 0.
  const refused =
    program.endsWith('kadmin.local') &&
    /\b(while|error|failed|not found|already exists)\b/i.test(result.stderr);
  if (result.code !== 0 || refused) {
    throw new KerberosCommandError([program, ...args].join(' '), result.code, output);
  }
  return output;
}

const PRINCIPAL_NAME = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)?(@[A-Z0-9.-]+)?$/;

class MitKdc implements Kdc {
  readonly realm: string;
  readonly krb5ConfigPath: string;
  readonly kdcConfigPath: string;
  readonly dir: string;
  readonly port: number;
  readonly pid: number;
  readonly logFile: string;
  #stopping: Promise<void> | undefined;
  #next = 0;

  constructor(
    private readonly files: RealmFiles,
    private readonly server: ServerProcess,
    private readonly programs: KerberosPrograms,
    private readonly settings: ResolvedKdcOptions,
  ) {
    this.realm = settings.realm;
    this.krb5ConfigPath = files.krb5ConfigPath;
    this.kdcConfigPath = files.kdcConfigPath;
    this.dir = files.dir;
    this.port = files.port;
    this.pid = server.pid;
    this.logFile = files.logFile;
  }

  get stopped(): boolean {
    return this.#stopping !== undefined;
  }

  principal(name: string): string {
    const checked = this.#checkName(name);
    return checked.includes('@') ? checked : `${checked}@${this.realm}`;
  }

  async addPrincipal(name: string, options: AddPrincipalOptions = {}): Promise<string> {
    const principal = this.principal(name);
    const password = options.password;
    if (
      password !== undefined &&
      (typeof password !== 'string' || password === '' || /[\r\n]/.test(password))
    ) {
      throw new InvalidOptionError('password', 'expected a non-empty string without line breaks');
    }
    this.#checkRunning('addPrincipal');
    // Without -pw kadmin.local prompts twice for the password, which it reads from stdin.
    await this.#kadmin(
      password === undefined ? ['addprinc', '-randkey', principal] : ['addprinc', principal],
      password === undefined ? undefined : `${password}\n${password}\n`,
    );
    return principal;
  }

  async keytab(principals: readonly string[]): Promise<string> {
    const names: string[] = [];
    for (const p of principals) names.push(this.principal(p));
    if (names.length === 0)
      throw new InvalidOptionError('principals', 'expected at least one principal name');
    this.#checkRunning('keytab');
    const existing = new Set((await this.#kadmin(['listprincs'])).split('\n').map((l) => l.trim()));
    for (const name of names) {
      if (!existing.has(name)) {
        await this.#kadmin(['addprinc', '-randkey', name]);
        existing.add(name);
      }
    }
    const path = join(this.dir, 'keytabs', `keytab-${++this.#next}.keytab`);
    // -norandkey exports the current keys: a fresh key would void every earlier keytab and password.
    await this.#kadmin(['ktadd', '-k', path, '-norandkey', ...names]);
    return path;
  }

  async kinit(principal: string, options: KinitOptions = {}): Promise<string> {
    const name = this.principal(principal);
    if (options.keytab !== undefined && options.password !== undefined) {
      throw new InvalidOptionError('keytab', 'give a keytab or a password, not both');
    }
    const lifetime =
      options.lifetimeSeconds === undefined
        ? undefined
        : checkInteger('lifetimeSeconds', options.lifetimeSeconds, 1, this.settings.maxTicketLifetimeSeconds);
    if (options.password !== undefined && (options.password === '' || /[\r\n]/.test(options.password))) {
      throw new InvalidOptionError('password', 'expected a non-empty string without line breaks');
    }
    this.#checkRunning('kinit');
    const keytab =
      options.password === undefined ? (options.keytab ?? (await this.keytab([name]))) : undefined;
    const ccache = options.ccache ?? join(this.dir, 'ccache', `cc-${++this.#next}`);
    const args = [
      '-c',
      `FILE:${ccache}`,
      ...(lifetime === undefined ? [] : ['-l', `${lifetime}s`]),
      ...(keytab === undefined ? [] : ['-k', '-t', keytab]),
      name,
    ];
    await runKerberos(this.programs.kinit, args, {
      env: this.files.env(),
      timeoutMs: this.settings.commandTimeoutMs,
      ...(options.password === undefined ? {} : { input: `${options.password}\n` }),
    });
    return ccache;
  }

  env(): Record<string, string> {
    return this.files.env();
  }

  javaOptions(): string[] {
    return [`-Djava.security.krb5.conf=${this.krb5ConfigPath}`];
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      await stopServer(this.server);
      await rm(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
      forgetDirectory(this.dir);
    })();
    return this.#stopping;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  #checkName(name: string): string {
    if (typeof name !== 'string' || !PRINCIPAL_NAME.test(name)) {
      throw new InvalidOptionError(
        'principal',
        `expected a principal name such as client, client/host or HTTP/localhost@${this.realm}, got ${JSON.stringify(name)}`,
      );
    }
    return name;
  }

  #checkRunning(call: string): void {
    if (this.#stopping !== undefined) throw new KdcStateError(`${call} after the KDC was stopped`);
    const exit = this.server.exit();
    if (exit !== undefined) {
      throw new KdcStateError(`${call}: the KDC exited (${exit.signal ?? `exit ${exit.code}`})`);
    }
  }

  #kadmin(args: readonly string[], input?: string): Promise<string> {
    return runKerberos(this.programs.kadminLocal, ['-r', this.realm, ...args], {
      env: this.files.env(),
      timeoutMs: this.settings.commandTimeoutMs,
      ...(input === undefined ? {} : { input }),
    });
  }
}
