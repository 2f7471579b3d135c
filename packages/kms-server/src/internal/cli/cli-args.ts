import { parseArgs } from 'node:util';
import { KMS_EDGE_ENVIRONMENT, KMS_SETTINGS } from '../config/kms-settings-table.js';
import { KmsConfigError } from '../../kms-errors.js';

/** What the command line asks for. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'serve'; options: CliOptions }
  | { kind: 'keystore-create'; options: CliOptions }
  | { kind: 'keystore-rekey'; options: CliOptions; newPasswordFile: string | undefined };

/** Options shared by the commands; each maps to a `kms-site.xml` property. */
export interface CliOptions {
  configDir: string | undefined;
  /** Property values given on the command line (flags and `-D key=value`). */
  properties: Record<string, string>;
  logLevel: string | undefined;
}

/** Flags with a value, and the property each one sets (from the settings table). */
const PROPERTY_FLAGS: ReadonlyMap<string, string> = new Map(
  KMS_SETTINGS.flatMap((row) => (row.flag === undefined ? [] : [[row.flag.name, row.key] as const])),
);

/** The flags that set no property. */
const OWN_FLAGS = [
  { name: 'config-dir', value: '<dir>', help: 'directory of kms-site.xml and kms-acls.xml (both optional)' },
  { name: 'log-level', value: '<level>', help: 'request log: silent (default), error, warn, info, debug' },
] as const;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  'config-dir': { type: 'string' },
  'log-level': { type: 'string' },
  'new-password-file': { type: 'string' },
  define: { type: 'string', short: 'D', multiple: true },
  ...Object.fromEntries([...PROPERTY_FLAGS.keys()].map((name) => [name, { type: 'string' as const }])),
} as const;

function flagLine(flag: string, help: string): string {
  return `  ${flag.length >= 30 ? `${flag}  ` : flag.padEnd(30)}${help}\n`;
}

/** `--help`, generated from the settings table. */
export const CLI_USAGE =
  `Usage:
  fastpath-kms [options]                     start a KMS (REST API v1 under /kms/v1)
  fastpath-kms keystore create [options]     create an empty keystore
  fastpath-kms keystore rekey [options] --new-password-file <file>
                                             re-encrypt the keystore under a new password
  fastpath-kms --help | --version

Options:
` +
  KMS_SETTINGS.map((row) =>
    row.flag === undefined
      ? ''
      : flagLine(`--${row.flag.name} ${row.flag.value}`, `${row.flag.help} (${row.key})`),
  ).join('') +
  OWN_FLAGS.map((flag) => flagLine(`--${flag.name} ${flag.value}`, flag.help)).join('') +
  flagLine(
    '-D <property>=<value>',
    'any kms-site.xml property, e.g. -D hadoop.kms.authentication.zk-dt-secret-manager.enable=true',
  ) +
  `
Environment (command-line options win over the environment, which wins over kms-site.xml):
` +
  KMS_SETTINGS.map((row) => (row.env === undefined ? '' : flagLine(row.env, row.key))).join('') +
  Object.entries(KMS_EDGE_ENVIRONMENT)
    .map(([name, doc]) => flagLine(name, doc.replace(/`/g, '')))
    .join('');

/** A `node:util` parse error as the one-line `ERR_KMS_CONFIG` this command prints. */
function usageError(error: unknown): KmsConfigError {
  const { code, message } = error as { code?: string; message?: string };
  const flag = /'(-{1,2}[^' ,]+)/.exec(message ?? '')?.[1] ?? 'command line';
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    return new KmsConfigError(flag, `${flag} needs a value`);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return new KmsConfigError(flag, `unknown option ${JSON.stringify(flag)} (see --help)`);
  return new KmsConfigError(flag, message ?? 'invalid command line');
}

function assignment(text: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw new KmsConfigError('-D', `-D expects <property>=<value>, got ${JSON.stringify(text)}`);
  return [text.slice(0, at), text.slice(at + 1)];
}

/**
 * Parses the command line with `node:util`'s `parseArgs`. Refuses unknown flags and missing
 * values with `ERR_KMS_CONFIG` naming the flag. Flags and `-D` apply in the order given.
 *
 * @example
 * ```ts
 * parseCliArgs(['--port', '9700', '-D', 'hadoop.kms.audit.aggregation.window.ms=5000']);
 * ```
 */
export function parseCliArgs(argv: readonly string[]): CliCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (error) {
    throw usageError(error);
  }
  if (parsed.values.help === true) return { kind: 'help' };
  if (parsed.values.version === true) return { kind: 'version' };
  const [first, second, ...rest] = parsed.positionals;
  let kind: 'serve' | 'keystore-create' | 'keystore-rekey' = 'serve';
  if (first === 'keystore') {
    if (second === 'create') kind = 'keystore-create';
    else if (second === 'rekey') kind = 'keystore-rekey';
    else
      throw new KmsConfigError(
        'keystore',
        `unknown keystore command ${JSON.stringify(second ?? '')}: use create or rekey`,
      );
  } else if (first !== undefined && first !== 'serve') {
    throw new KmsConfigError(first, `unknown command ${JSON.stringify(first)} (see --help)`);
  }
  const extra = first === 'keystore' ? rest : [second, ...rest].filter((p) => p !== undefined);
  if (extra.length > 0)
    throw new KmsConfigError(String(extra[0]), `unexpected argument ${JSON.stringify(extra[0])}`);

  const options: CliOptions = { configDir: undefined, properties: {}, logLevel: undefined };
  let newPasswordFile: string | undefined;
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    const value = token.value;
    // The property flags come from the table, so the name is any string here.
    const name: string = token.name;
    if (name === 'define') {
      const [key, v] = assignment(value);
      options.properties[key] = v;
    } else if (name === 'config-dir') {
      options.configDir = value;
    } else if (name === 'log-level') {
      options.logLevel = value;
    } else if (name === 'new-password-file') {
      if (kind !== 'keystore-rekey')
        throw new KmsConfigError(
          token.rawName,
          `unknown option ${JSON.stringify(token.rawName)} (see --help)`,
        );
      newPasswordFile = value;
    } else {
      const property = PROPERTY_FLAGS.get(name);
      if (property !== undefined) options.properties[property] = value;
    }
  }
  if (kind === 'keystore-rekey') return { kind, options, newPasswordFile };
  return { kind, options };
}
