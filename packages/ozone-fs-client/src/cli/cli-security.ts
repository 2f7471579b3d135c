// The command line's security, read at the edge as Hadoop's UserGroupInformation reads it: the
// token files of HADOOP_TOKEN_FILE_LOCATION (a comma list; a missing file is reported and skipped,
// as Hadoop does), and Kerberos when the configuration says `hadoop.security.authentication` is
// `kerberos` (the client decides that from its properties) or a keytab is given.
import { Credentials, type Token } from '@fastpath/hadoop-common';
import type { OzoneSecurityOptions } from '../internal/om/om-sasl.js';

/** What the environment and the command line give the client to log in with. */
export async function cliSecurity(
  env: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void,
  login: { principal?: string; keytab?: string } = {},
): Promise<OzoneSecurityOptions> {
  const files = (env['HADOOP_TOKEN_FILE_LOCATION'] ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  const tokens = new Map<string, Token>();
  for (const file of files) {
    let credentials: Credentials;
    try {
      credentials = await Credentials.readFile(file);
    } catch (error) {
      warn(`token file ${file} not read: ${(error as Error).message.split('\n')[0] ?? ''}`);
      continue;
    }
    for (const [alias, token] of credentials.tokens) tokens.set(alias, token);
  }
  return {
    ...(tokens.size === 0 ? {} : { credentials: new Credentials({ tokens }) }),
    ...(login.keytab === undefined ? {} : { kerberos: login }),
  };
}
