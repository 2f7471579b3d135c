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

/** Flags with a value, and the property each one sets. */
const PROPERTY_FLAGS: Readonly<Record<string, string>> = Object.freeze({
  '--port': 'hadoop.kms.http.port',
  '--host': 'hadoop.kms.http.host',
  '--data-dir': 'fastpath.kms.data.dir',
  '--workers': 'fastpath.kms.workers',
  '--keystore-file': 'fastpath.kms.keystore.file',
  '--keystore-password-file': 'fastpath.kms.keystore.password.file',
  '--audit-log': 'fastpath.kms.audit.log.file',
  '--tls-cert': 'fastpath.kms.ssl.certificate.file',
  '--tls-key': 'fastpath.kms.ssl.private.key.file',
});

export const CLI_USAGE = `Usage:
  fastpath-kms [options]                     start a KMS (REST API v1 under /kms/v1)
  fastpath-kms keystore create [options]     create an empty keystore
  fastpath-kms keystore rekey [options] --new-password-file <file>
                                             re-encrypt the keystore under a new password
  fastpath-kms --help | --version

Options:
  --port <n>                    listen port (hadoop.kms.http.port, default 9600; 0 = any free port)
  --host <address>              listen address (hadoop.kms.http.host, default 0.0.0.0)
  --config-dir <dir>            directory of kms-site.xml and kms-acls.xml (both optional)
  --data-dir <dir>              keystore, generated password file, audit log (default ~/.fastpath-kms)
  --workers <n>                 processes sharing the port (needs the ZooKeeper token store), default 1
  --keystore-file <file>        keystore (default <data-dir>/kms.keystore)
  --keystore-password-file <f>  keystore password file (else FASTPATH_KMS_KEYSTORE_PASSWORD, else a
                                generated owner-only file <data-dir>/kms.keystore.password)
  --tls-cert <pem> --tls-key <pem>   serve HTTPS
  --audit-log <file>            audit log (default <data-dir>/kms-audit.log)
  --log-level <level>           request log: silent (default), error, warn, info, debug
  -D <property>=<value>         any kms-site.xml property, e.g. -D hadoop.kms.authentication.zk-dt-secret-manager.enable=true

Environment: FASTPATH_KMS_PORT, FASTPATH_KMS_HOST, FASTPATH_KMS_CONFIG_DIR, FASTPATH_KMS_DATA_DIR,
  FASTPATH_KMS_WORKERS, FASTPATH_KMS_KEYSTORE_PASSWORD, FASTPATH_KMS_KEYSTORE_PASSWORD_FILE,
  FASTPATH_KMS_KEYSTORE_NEW_PASSWORD (rekey), FASTPATH_KMS_AUDIT_LOG, FASTPATH_KMS_TLS_CERT,
  FASTPATH_KMS_TLS_KEY, FASTPATH_KMS_LOG_LEVEL. Command-line options win over the environment,
  which wins over kms-site.xml.
`;

/**
 * Parses the command line. Refuses unknown flags and missing values with `ERR_KMS_CONFIG` naming
 * the flag.
 *
 * @example
 * ```ts
 * parseCliArgs(['--port', '9700', '-D', 'hadoop.kms.audit.aggregation.window.ms=5000']);
 * ```
 */
export function parseCliArgs(argv: readonly string[]): CliCommand {
  const args = [...argv];
  let kind: 'serve' | 'keystore-create' | 'keystore-rekey' = 'serve';
  if (args[0] === 'keystore') {
    const sub = args[1];
    if (sub === 'create') kind = 'keystore-create';
    else if (sub === 'rekey') kind = 'keystore-rekey';
    else
      throw new KmsConfigError(
        'keystore',
        `unknown keystore command ${JSON.stringify(sub ?? '')}: use create or rekey`,
      );
    args.splice(0, 2);
  } else if (args[0] === 'serve') {
    args.shift();
  }
  const options: CliOptions = { configDir: undefined, properties: {}, logLevel: undefined };
  let newPasswordFile: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const raw = args[i] as string;
    if (raw === '--help' || raw === '-h') return { kind: 'help' };
    if (raw === '--version') return { kind: 'version' };
    const eq = raw.startsWith('--') ? raw.indexOf('=') : -1;
    const flag = eq === -1 ? raw : raw.slice(0, eq);
    const value = (): string => {
      if (eq !== -1) return raw.slice(eq + 1);
      const next = args[++i];
      if (next === undefined) throw new KmsConfigError(flag, `${flag} needs a value`);
      return next;
    };
    if (flag === '-D') {
      const assignment = value();
      const at = assignment.indexOf('=');
      if (at <= 0)
        throw new KmsConfigError('-D', `-D expects <property>=<value>, got ${JSON.stringify(assignment)}`);
      options.properties[assignment.slice(0, at)] = assignment.slice(at + 1);
    } else if (flag.startsWith('-D') && flag.length > 2) {
      const assignment = raw.slice(2);
      const at = assignment.indexOf('=');
      if (at <= 0)
        throw new KmsConfigError('-D', `-D expects <property>=<value>, got ${JSON.stringify(assignment)}`);
      options.properties[assignment.slice(0, at)] = assignment.slice(at + 1);
    } else if (flag === '--config-dir') {
      options.configDir = value();
    } else if (flag === '--log-level') {
      options.logLevel = value();
    } else if (flag === '--new-password-file' && kind === 'keystore-rekey') {
      newPasswordFile = value();
    } else if (flag in PROPERTY_FLAGS) {
      options.properties[PROPERTY_FLAGS[flag] as string] = value();
    } else {
      throw new KmsConfigError(flag, `unknown option ${JSON.stringify(flag)} (see --help)`);
    }
  }
  if (kind === 'keystore-rekey') return { kind, options, newPasswordFile };
  return { kind, options };
}
