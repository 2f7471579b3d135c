import { readFileSync } from 'node:fs';

/** Where libkrb5 reads its configuration when `KRB5_CONFIG` is not set. */
export const DEFAULT_KRB5_CONFIG = '/etc/krb5.conf';

/**
 * `[libdefaults] default_realm` of a krb5.conf text, or `undefined` when it names none.
 * Only what the KMS needs: the realm a principal without one belongs to, as Hadoop's
 * `KerberosName` takes it for its `DEFAULT` rule.
 */
export function parseDefaultRealm(text: string): string | undefined {
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#;].*$/, '').trim();
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = (header[1] ?? '').trim();
      continue;
    }
    if (section !== 'libdefaults') continue;
    const m = /^default_realm\s*=\s*(\S+)$/.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * The default realm of the krb5.conf libkrb5 would read (`KRB5_CONFIG`'s first file, else
 * `/etc/krb5.conf`), or `undefined` when there is no such file or it names no realm.
 */
export function defaultRealm(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const files = (env['KRB5_CONFIG'] ?? DEFAULT_KRB5_CONFIG).split(':').filter((f) => f !== '');
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const realm = parseDefaultRealm(text);
    if (realm !== undefined) return realm;
  }
  return undefined;
}
