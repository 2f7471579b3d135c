import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { FastpathError, InvalidOptionError, Redacted } from '@fastpath/core';
import type { KeyMetadata } from './key-metadata.js';
import { KmsClient } from './kms-client.js';
import type { CreateKeyOptions, KmsClientOptions } from './kms-client.js';
import { KmsDelegationToken } from './kms-delegation-token.js';
import { KmsError } from './kms-errors.js';

/** Where {@link runKeyShell} reads and writes; the process entry point passes the real ones. */
export interface KeyShellIo {
  /** Writes one line of output. */
  stdout(line: string): void;
  /** Writes one line of diagnostics (errors, prompts' context). */
  stderr(line: string): void;
  /** Environment variables (`FASTPATH_KMS_URL`, `FASTPATH_KMS_USER`, `FASTPATH_KMS_TOKEN`). */
  env: Readonly<Record<string, string | undefined>>;
  /** Asks a question and resolves with the answer line, or `undefined` when input has ended. */
  readLine(prompt: string): Promise<string | undefined>;
  /** The login name used for simple authentication when neither `--user` nor the environment gives one. */
  defaultUser: string | undefined;
}

/** Base URL used when neither `--url` nor `FASTPATH_KMS_URL` is given: a local `fastpath-kms`. */
export const DEFAULT_KEY_SHELL_URL = 'http://127.0.0.1:9600/kms';

const USAGE = `Usage: fastpath-key [options] <command>

Commands (as in "hadoop key"):
  list [-metadata]                      list key names (with -metadata: cipher, length, versions…)
  create <name> [-cipher C] [-size N] [-description D] [-attr k=v]...
                                        create a key (defaults: the server's, AES/CTR/NoPadding 128)
  roll <name>                           add a new version of a key and make it current
  delete <name> [-f]                    delete a key and all its versions (asks unless -f)
  invalidatecache <name>                drop the server's caches of a key
  token get [-renewer R] [-service S] [-output FILE]
                                        get a delegation token (needs a user name, not a token)
  token renew [TOKEN]                   renew a token (default: the one of --token); prints the expiry
  token cancel [TOKEN]                  cancel a token (default: the one of --token)

Options (single or double dash):
  --url URL          KMS base URL, http(s)://host:port/kms or kms://http@host:port/kms
                     (env FASTPATH_KMS_URL; default ${DEFAULT_KEY_SHELL_URL})
  --provider URL     same as --url (hadoop key's name)
  --user NAME        user name for simple authentication (env FASTPATH_KMS_USER; default: login name)
  --token TOKEN      delegation token URL string, used for key commands (env FASTPATH_KMS_TOKEN)
  --token-file FILE  read the token from FILE (keeps it out of the process list)
  --kerberos         log in with Kerberos (SPNEGO) from the ticket cache (KRB5CCNAME), not --user
  --principal P      Kerberos principal to log in as (with --keytab)
  --keytab FILE      log in with Kerberos from this keytab as --principal
  --doas USER        act as USER (proxy-user rules of the server apply)
  --ca FILE          PEM certificate authorities to trust for https
  --timeout-ms N     limit per request in milliseconds (default 60000)
  --json             machine-readable output on stdout (errors as JSON on stderr)
  -h, --help         this text

Exit status: 0 success, 1 the operation failed (or a delete was not confirmed), 2 usage error.`;

const OPTIONS = {
  url: { type: 'string' },
  provider: { type: 'string' },
  user: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  doas: { type: 'string' },
  kerberos: { type: 'boolean' },
  principal: { type: 'string' },
  keytab: { type: 'string' },
  ca: { type: 'string' },
  'timeout-ms': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  metadata: { type: 'boolean' },
  cipher: { type: 'string' },
  size: { type: 'string' },
  description: { type: 'string' },
  attr: { type: 'string', multiple: true },
  force: { type: 'boolean', short: 'f' },
  renewer: { type: 'string' },
  service: { type: 'string' },
  output: { type: 'string' },
} as const;

/** Options that belong to one command only; any other command refuses them. */
const COMMAND_OPTIONS: Record<string, readonly string[]> = {
  list: ['metadata'],
  create: ['cipher', 'size', 'description', 'attr'],
  delete: ['force'],
  'token get': ['renewer', 'service', 'output'],
};
const COMMAND_ONLY = new Set(Object.values(COMMAND_OPTIONS).flat());

/** The command line cannot be run as given (exit status 2). */
class UsageError extends FastpathError {
  constructor(message: string) {
    super('ERR_KMS_CLI_USAGE', message);
  }
}

type Values = ReturnType<typeof parse>['values'];

function parse(argv: readonly string[]) {
  // hadoop key spells long options with one dash (-metadata, -size); accept both spellings.
  const args = argv.map((a) =>
    /^-[a-z][a-z-]+(=|$)/.test(a) && (a.slice(1).split('=')[0] as string) in OPTIONS ? `-${a}` : a,
  );
  return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
}

/**
 * Runs `fastpath-key` with `argv` (the arguments after the command name) and resolves with the
 * exit status: 0 success, 1 failure, 2 usage error. Never throws.
 *
 * @example
 * ```ts
 * const code = await runKeyShell(['list', '-metadata', '--json'], io);
 * ```
 */
export async function runKeyShell(argv: readonly string[], io: KeyShellIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    io.stderr(`fastpath-key: ${(err as Error).message}`);
    io.stderr('Run "fastpath-key --help" for usage.');
    return 2;
  }
  const { values, positionals } = parsed;
  const json = values.json === true;
  if (values.help === true) {
    io.stdout(USAGE);
    return 0;
  }
  let client: KmsClient | undefined;
  try {
    const command = commandOf(positionals);
    checkCommandOptions(command.name, values);
    client = new KmsClient(await clientOptions(values, io));
    const out = new Output(io, json);
    return await command.run(client, values, out, io);
  } catch (err) {
    return report(err, io, json, values);
  } finally {
    await client?.close();
  }
}

interface Command {
  name: string;
  run(client: KmsClient, values: Values, out: Output, io: KeyShellIo): Promise<number>;
}

function commandOf(positionals: readonly string[]): Command {
  const [first, ...rest] = positionals;
  const one = (what: string): string => {
    if (rest.length !== 1) throw new UsageError(`${first} needs exactly one ${what}`);
    return rest[0] as string;
  };
  switch (first) {
    case undefined:
      throw new UsageError('no command given');
    case 'list':
      if (rest.length !== 0) throw new UsageError('list takes no arguments');
      return { name: 'list', run: (c, v, o) => list(c, v, o) };
    case 'create': {
      const name = one('key name');
      return { name: 'create', run: (c, v, o) => create(c, name, v, o) };
    }
    case 'roll': {
      const name = one('key name');
      return { name: 'roll', run: (c, _v, o) => roll(c, name, o) };
    }
    case 'delete': {
      const name = one('key name');
      return { name: 'delete', run: (c, v, o, io) => remove(c, name, v, o, io) };
    }
    case 'invalidatecache':
    case 'invalidateCache':
    case 'invalidate-cache': {
      const name = one('key name');
      return { name: 'invalidatecache', run: (c, _v, o) => invalidate(c, name, o) };
    }
    case 'token': {
      const [sub, ...args] = rest;
      if (sub === 'get') {
        if (args.length !== 0) throw new UsageError('token get takes no arguments');
        return { name: 'token get', run: (c, v, o) => tokenGet(c, v, o) };
      }
      if (sub === 'renew' || sub === 'cancel') {
        if (args.length > 1) throw new UsageError(`token ${sub} takes at most one token`);
        return { name: `token ${sub}`, run: (c, v, o, io) => tokenRenewOrCancel(c, sub, args[0], v, o, io) };
      }
      throw new UsageError(
        sub === undefined ? 'token needs get, renew or cancel' : `unknown token command "${sub}"`,
      );
    }
    default:
      throw new UsageError(`unknown command "${first}"`);
  }
}

function checkCommandOptions(command: string, values: Values): void {
  const allowed = COMMAND_OPTIONS[command] ?? [];
  for (const option of COMMAND_ONLY) {
    if ((values as Record<string, unknown>)[option] !== undefined && !allowed.includes(option)) {
      throw new UsageError(`option --${option} does not apply to "${command}"`);
    }
  }
}

async function clientOptions(values: Values, io: KeyShellIo): Promise<KmsClientOptions> {
  if (values.url !== undefined && values.provider !== undefined)
    throw new UsageError('give --url or --provider, not both');
  if (values.token !== undefined && values['token-file'] !== undefined) {
    throw new UsageError('give --token or --token-file, not both');
  }
  const url = values.url ?? values.provider ?? nonEmpty(io.env['FASTPATH_KMS_URL']) ?? DEFAULT_KEY_SHELL_URL;
  const options: KmsClientOptions = { url };
  if ((values.keytab === undefined) !== (values.principal === undefined)) {
    throw new UsageError('--keytab and --principal go together');
  }
  if (values.kerberos === true || values.keytab !== undefined) {
    if (values.user !== undefined)
      throw new UsageError('give --user or Kerberos (--kerberos, --keytab), not both');
    options.kerberos =
      values.keytab === undefined ? true : { keytab: values.keytab, principal: values.principal as string };
  } else {
    const user = values.user ?? nonEmpty(io.env['FASTPATH_KMS_USER']) ?? io.defaultUser;
    if (user !== undefined) options.user = user;
  }
  const token = await tokenOption(values, io);
  if (token !== undefined) options.delegationToken = token;
  if (values.doas !== undefined) options.doAs = values.doas;
  if (values.ca !== undefined) options.ca = await readOptionFile('--ca', values.ca);
  if (values['timeout-ms'] !== undefined)
    options.requestTimeoutMs = integer('--timeout-ms', values['timeout-ms']);
  return options;
}

async function tokenOption(values: Values, io: KeyShellIo): Promise<Redacted<string> | undefined> {
  const file = values['token-file'];
  if (file !== undefined) return new Redacted((await readOptionFile('--token-file', file)).trim());
  const token = values.token ?? nonEmpty(io.env['FASTPATH_KMS_TOKEN']);
  return token === undefined ? undefined : new Redacted(token);
}

async function readOptionFile(option: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(`cannot read the ${option} file "${path}" (${code})`);
  }
}

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);

function integer(option: string, text: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) === 0) {
    throw new UsageError(`${option} needs a positive integer, got "${text}"`);
  }
  return Number(text);
}

/** Human lines or one JSON document on stdout. */
class Output {
  constructor(
    private readonly io: KeyShellIo,
    readonly json: boolean,
  ) {}
  line(text: string): void {
    if (!this.json) this.io.stdout(text);
  }
  result(value: unknown): void {
    if (this.json) this.io.stdout(JSON.stringify(value, null, 2));
  }
}

async function list(client: KmsClient, values: Values, out: Output): Promise<number> {
  const names = await client.getKeyNames();
  out.line(`Listing keys for KeyProvider: ${client.url}`);
  if (values.metadata !== true) {
    for (const name of names) out.line(name);
    out.result(names);
    return 0;
  }
  const metadata = names.length === 0 ? [] : await client.getKeysMetadata(names);
  // A key deleted between the two calls comes back as undefined: it is no longer there to list.
  const present = metadata.filter((m): m is KeyMetadata => m !== undefined);
  for (const m of present) out.line(describeMetadata(m));
  out.result(present);
  return 0;
}

function describeMetadata(m: KeyMetadata): string {
  const attributes = Object.entries(m.attributes).map(([k, v]) => `${k}=${v}`);
  return (
    `${m.name} : cipher: ${m.cipher}, length: ${m.length}, description: ${m.description ?? 'null'}, ` +
    `created: ${new Date(m.created).toISOString()}, version: ${m.versions}, attributes: [${attributes.join(', ')}]`
  );
}

async function create(client: KmsClient, name: string, values: Values, out: Output): Promise<number> {
  const options: CreateKeyOptions = {};
  if (values.cipher !== undefined) options.cipher = values.cipher;
  if (values.size !== undefined) options.length = integer('--size', values.size);
  if (values.description !== undefined) options.description = values.description;
  if (values.attr !== undefined) options.attributes = attributes(values.attr);
  const created = await client.createKey(name, options);
  const shown = [
    `cipher=${options.cipher ?? '(server default)'}`,
    `length=${options.length ?? '(server default)'}`,
    `description=${options.description ?? 'null'}`,
    `attributes=${options.attributes === undefined ? 'null' : JSON.stringify(options.attributes)}`,
  ];
  out.line(`${name} has been successfully created with options ${shown.join(', ')}.`);
  out.line(`${client.url} has been updated.`);
  out.result({ name: created.name, versionName: created.versionName, location: created.location ?? null });
  return 0;
}

function attributes(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--attr needs name=value, got "${pair}"`);
    const key = pair.slice(0, eq).trim();
    if (key === '') throw new UsageError(`--attr needs name=value, got "${pair}"`);
    if (key in out) throw new UsageError(`attribute "${key}" was given more than once`);
    out[key] = pair.slice(eq + 1).trim();
  }
  return out;
}

async function roll(client: KmsClient, name: string, out: Output): Promise<number> {
  out.line(`Rolling ${name} key version from KeyProvider: ${client.url}`);
  const version = await client.rollNewVersion(name);
  out.line(`${name} has been successfully rolled; the current version is ${version.versionName}.`);
  out.line(`${client.url} has been updated.`);
  out.result({ name: version.name, versionName: version.versionName });
  return 0;
}

async function remove(
  client: KmsClient,
  name: string,
  values: Values,
  out: Output,
  io: KeyShellIo,
): Promise<number> {
  if (values.force !== true) {
    const answer = await io.readLine(
      `You are about to DELETE all versions of key ${name} from KeyProvider ${client.url}. Continue? (Y or N) `,
    );
    if (answer === undefined || !/^\s*y(es)?\s*$/i.test(answer)) {
      io.stderr('Nothing has been deleted.');
      return 1;
    }
  }
  out.line(`Deleting key: ${name} from KeyProvider: ${client.url}`);
  await client.deleteKey(name);
  out.line(`${name} has been successfully deleted.`);
  out.line(`${client.url} has been updated.`);
  out.result({ name, deleted: true });
  return 0;
}

async function invalidate(client: KmsClient, name: string, out: Output): Promise<number> {
  await client.invalidateCache(name);
  out.line(`${name} has been successfully invalidated.`);
  out.result({ name, invalidated: true });
  return 0;
}

async function tokenGet(client: KmsClient, values: Values, out: Output): Promise<number> {
  const options: { renewer?: string; service?: string } = {};
  if (values.renewer !== undefined) options.renewer = values.renewer;
  if (values.service !== undefined) options.service = values.service;
  const token = await client.getDelegationToken(options);
  if (values.output !== undefined) {
    // Owner-only from the first byte: the string is a credential.
    await writeFile(values.output, `${token.toUrlString()}\n`, { mode: 0o600, flag: 'w' });
  }
  out.line(`Token kind: ${token.kind}`);
  out.line(`Service: ${token.service === '' ? '-' : token.service}`);
  out.line(
    `Owner: ${token.owner}${token.realUser !== '' && token.realUser !== token.owner ? ` (real user ${token.realUser})` : ''}`,
  );
  out.line(`Renewer: ${token.renewer === '' ? '-' : token.renewer}`);
  out.line(`Issued: ${new Date(token.issueDate).toISOString()}`);
  out.line(`Max date: ${new Date(token.maxDate).toISOString()}`);
  out.line(`Sequence number: ${token.sequenceNumber}`);
  if (values.output !== undefined) out.line(`Token written to ${values.output}`);
  else out.line(`URL string: ${token.toUrlString()}`);
  out.result(
    values.output === undefined
      ? { ...token.toJSON(), urlString: token.toUrlString() }
      : { ...token.toJSON(), file: values.output },
  );
  return 0;
}

async function tokenRenewOrCancel(
  client: KmsClient,
  sub: 'renew' | 'cancel',
  argument: string | undefined,
  values: Values,
  out: Output,
  io: KeyShellIo,
): Promise<number> {
  const token = argument === undefined ? await tokenOption(values, io) : new Redacted(argument);
  if (token === undefined) {
    throw new UsageError(
      `token ${sub} needs a token: an argument, --token, --token-file or FASTPATH_KMS_TOKEN`,
    );
  }
  const parsed = KmsDelegationToken.fromUrlString(token);
  if (sub === 'renew') {
    const expiry = await client.renewDelegationToken(parsed);
    out.line(`Token renewed: ${String(parsed)}; it now expires at ${new Date(expiry).toISOString()}.`);
    out.result({ expiryMs: expiry, expiry: new Date(expiry).toISOString() });
    return 0;
  }
  await client.cancelDelegationToken(parsed);
  out.line(`Token cancelled: ${String(parsed)}.`);
  out.result({ cancelled: true });
  return 0;
}

const HINTS: Record<string, (url: string) => string> = {
  ERR_KMS_UNREACHABLE: (url) => `Is a KMS running at ${url}? Set --url or FASTPATH_KMS_URL.`,
  ERR_KMS_TIMEOUT: () => 'The server did not answer in time; --timeout-ms sets the limit.',
  ERR_KMS_AUTHENTICATION_REQUIRED: () =>
    'Give a user name with --user (or FASTPATH_KMS_USER); getting and renewing tokens needs one, a token is not enough.',
  ERR_KMS_AUTHENTICATION_FAILED: () =>
    'The token is invalid, expired or cancelled, or you are not its renewer.',
  ERR_KMS_ACCESS_DENIED: () => "The server's ACLs (kms-acls.xml) do not allow this operation for this user.",
  ERR_KMS_TLS: () => "Pass the server's CA certificate with --ca FILE.",
  ERR_KMS_NOT_FOUND: (url) => `Is ${url} the KMS base URL (it usually ends in /kms)?`,
};

function report(err: unknown, io: KeyShellIo, json: boolean, values: Values | undefined): number {
  const usage = err instanceof UsageError || err instanceof InvalidOptionError;
  const code = err instanceof FastpathError ? err.code : undefined;
  const message = err instanceof Error ? err.message : String(err);
  if (json) {
    const body: Record<string, unknown> = { code: code ?? null, message };
    if (err instanceof KmsError) {
      body['status'] = err.status ?? null;
      body['exception'] = err.remoteException ?? null;
      body['retriable'] = err.retriable;
    }
    io.stderr(JSON.stringify({ error: body }));
  } else {
    io.stderr(`fastpath-key: ${message}${code === undefined || usage ? '' : ` [${code}]`}`);
    const hint = code === undefined ? undefined : HINTS[code];
    if (hint !== undefined)
      io.stderr(hint(values?.url ?? values?.provider ?? io.env['FASTPATH_KMS_URL'] ?? DEFAULT_KEY_SHELL_URL));
    if (usage) io.stderr('Run "fastpath-key --help" for usage.');
  }
  if (usage) return 2;
  return 1;
}
