// `fastpath-ozone dtutil`: Hadoop's `hadoop dtutil` for Ozone Manager delegation tokens. `get`
// logs in with Kerberos, asks the OM for a token and adds it to a Credentials file (Hadoop's
// format, so Ozone's Java client and YARN read it); `print` shows a file's tokens (never their
// passwords); `renew` and `cancel` act on a file's OM tokens (`cancel` also drops them from it).
// Exit codes: 0 done, 1 the operation failed (one line on stderr), 2 a command line it cannot use.
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { FastpathError } from '@fastpath/core';
import { Credentials, type Token } from '@fastpath/hadoop-common';
import { OzoneClient } from '../ozone-client.js';
import { decodeOzoneTokenIdentifier, OZONE_TOKEN_KIND } from '../ozone-token-identifier.js';
import type { FsCliIo } from '../fs/fs-cli.js';
import { cliProperties } from './cli-configuration.js';
import { cliSecurity } from './cli-security.js';

export const DTUTIL_USAGE = `Usage: fastpath-ozone dtutil [-D key=value]... [--conf ozone-site.xml]... COMMAND
Commands:
  get [--om <host:port|service id>] [-renewer <user>] [-alias <alias>] [-format java|protobuf] <file>
                             get an OM delegation token (a Kerberos log-in) and add it to <file>
  print <file>...            the tokens of Credentials files (never their passwords)
  renew [-alias <alias>] <file>    renew the file's OM tokens; prints each new expiry
  cancel [-alias <alias>] <file>   cancel the file's OM tokens and remove them from the file
Options:
  -D key=value               an Ozone setting (ozone.om.address, ozone.om.kerberos.principal, …)
  --conf <file>              an ozone-site.xml to read (later files and -D win)
  --principal <name>         log in as this principal (with --keytab)
  --keytab <file>            log in from this keytab instead of the ticket cache
Kerberos is used when hadoop.security.authentication is kerberos or --keytab is given; tokens of
HADOOP_TOKEN_FILE_LOCATION are used too. Exit status: 0 done, 1 failed, 2 usage.`;

class UsageError extends Error {}

interface Parsed {
  overrides: Record<string, string>;
  confFiles: string[];
  login: { principal?: string; keytab?: string };
  command: string;
  options: Map<string, string>;
  files: string[];
}

const COMMANDS: Readonly<Record<string, { options: readonly string[]; files: [number, number] }>> = {
  get: { options: ['--om', '-renewer', '-alias', '-format'], files: [1, 1] },
  print: { options: [], files: [1, Infinity] },
  renew: { options: ['-alias'], files: [1, 1] },
  cancel: { options: ['-alias'], files: [1, 1] },
};

function parse(argv: readonly string[]): Parsed {
  const out: Parsed = { overrides: {}, confFiles: [], login: {}, command: '', options: new Map(), files: [] };
  let i = 0;
  const value = (flag: string): string => {
    const v = argv[++i];
    if (v === undefined || v === '') throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '-D' || (a.startsWith('-D') && a.length > 2)) {
      const kv = a === '-D' ? value('-D') : a.slice(2);
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new UsageError(`-D needs key=value, got ${kv}`);
      out.overrides[kv.slice(0, eq)] = kv.slice(eq + 1);
    } else if (a === '--conf' || a === '-conf') out.confFiles.push(value(a));
    else if (a === '--principal') out.login.principal = value(a);
    else if (a === '--keytab') out.login.keytab = value(a);
    else break;
  }
  const command = argv[i];
  const spec = command === undefined ? undefined : COMMANDS[command];
  if (spec === undefined || command === undefined) {
    throw new UsageError(command === undefined ? 'no dtutil command' : `unknown dtutil command ${command}`);
  }
  out.command = command;
  for (i++; i < argv.length; i++) {
    const a = argv[i] as string;
    if (spec.options.includes(a)) out.options.set(a, value(a));
    else if (a.startsWith('-') && a.length > 1) throw new UsageError(`${command} does not take ${a}`);
    else out.files.push(a);
  }
  const [min, max] = spec.files;
  if (out.files.length < min || out.files.length > max) {
    throw new UsageError(`${command} takes ${min === max ? min : `at least ${min}`} file(s)`);
  }
  const format = out.options.get('-format');
  if (format !== undefined && format !== 'java' && format !== 'protobuf') {
    throw new UsageError('-format is java or protobuf');
  }
  if (out.login.principal !== undefined && out.login.keytab === undefined) {
    throw new UsageError('--principal needs --keytab');
  }
  return out;
}

function date(ms: number): string {
  return new Date(ms).toISOString();
}

/** A token as `print` shows it: kind, service, and an OM token's identifier fields. */
function describe(alias: string, token: Token): string {
  const head = `${alias}\t${token.kind}\t${token.service}`;
  if (token.kind !== OZONE_TOKEN_KIND) return head;
  try {
    const id = decodeOzoneTokenIdentifier(token.identifier);
    return `${head}\towner=${id.owner} renewer=${id.renewer || '-'} realUser=${id.realUser || '-'} issued=${date(id.issueDate)} maxDate=${date(id.maxDate)} sequenceNumber=${id.sequenceNumber}`;
  } catch {
    return `${head}\t(identifier not readable)`;
  }
}

/** Runs one `dtutil` command line; resolves to the exit status. */
export async function runDtutilCli(argv: readonly string[], io: FsCliIo): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parse(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`fastpath-ozone dtutil: ${err.message}\n${DTUTIL_USAGE}\n`);
    return 2;
  }
  const { command, files, options } = parsed;
  const file = files[0] as string;
  let client: OzoneClient | undefined;
  try {
    const properties = cliProperties(parsed.confFiles, parsed.overrides, io.env);
    const security = await cliSecurity(
      io.env,
      (line) => io.stderr.write(`fastpath-ozone dtutil: ${line}\n`),
      parsed.login,
    );
    const connect = (omAddress: string | undefined): OzoneClient =>
      new OzoneClient({
        ...(omAddress === undefined ? {} : { omAddress }),
        userName: io.env.HADOOP_USER_NAME || userInfo().username,
        properties,
        security,
      });

    if (command === 'print') {
      for (const f of files) {
        io.stdout.write(`File: ${f}\nAlias\tKind\tService\tIdentifier\n`);
        for (const [alias, token] of (await Credentials.readFile(f)).tokens) {
          io.stdout.write(`${describe(alias, token)}\n`);
        }
      }
      return 0;
    }
    if (command === 'get') {
      client = connect(options.get('--om'));
      const token = await client.getDelegationToken(options.get('-renewer') ?? '');
      if (token === undefined) throw new Error('the OM gave no token: security is off on the cluster');
      const existing = existsSync(file) ? await Credentials.readFile(file) : new Credentials();
      await existing
        .withToken(options.get('-alias') ?? token.service, token)
        .writeFile(file, options.get('-format') === 'protobuf' ? 'protobuf' : 'writable');
      io.stdout.write(`${describe(options.get('-alias') ?? token.service, token)}\n`);
      return 0;
    }
    const credentials = await Credentials.readFile(file);
    const alias = options.get('-alias');
    const chosen = [...credentials.tokens].filter(
      ([a, t]) => t.kind === OZONE_TOKEN_KIND && (alias === undefined || a === alias),
    );
    if (chosen.length === 0)
      throw new Error(`${file} holds no ${OZONE_TOKEN_KIND}${alias === undefined ? '' : ` under ${alias}`}`);
    const kept = new Map(credentials.tokens);
    for (const [a, token] of chosen) {
      // The OM the configuration names, else the first address of the token's service.
      client ??= connect(
        properties['ozone.om.address'] === undefined ? token.service.split(',')[0] : undefined,
      );
      if (command === 'renew') {
        io.stdout.write(`${a}\trenewed until ${date(await client.renewDelegationToken(token))}\n`);
      } else {
        await client.cancelDelegationToken(token);
        kept.delete(a);
        io.stdout.write(`${a}\tcancelled\n`);
      }
    }
    if (command === 'cancel')
      await new Credentials({ tokens: kept, secretKeys: credentials.secretKeys }).writeFile(file);
    return 0;
  } catch (err) {
    const code = err instanceof FastpathError ? ` [${err.code}]` : '';
    const text = err instanceof Error ? err.message : String(err);
    io.stderr.write(`fastpath-ozone dtutil: ${command}: ${text.split('\n')[0] ?? ''}${code}\n`);
    return 1;
  } finally {
    client?.close();
  }
}
