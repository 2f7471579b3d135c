import { readFileSync } from 'node:fs';

/** Where libkrb5 (and so the `kerberos` package) reads its configuration when `KRB5_CONFIG` is unset. */
export const DEFAULT_KRB5_CONFIG = '/etc/krb5.conf';

/** `[libdefaults] default_realm` of a krb5.conf text, or `undefined` when it names none. */
export function parseKrb5DefaultRealm(text: string): string | undefined {
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[([^\]]+)\]/.exec(line);
    if (header !== null) {
      section = (header[1] ?? '').trim();
      continue;
    }
    if (section !== 'libdefaults') continue;
    const setting = /^default_realm\s*=\s*(\S+)/.exec(line);
    if (setting !== null) return setting[1];
  }
  return undefined;
}

/**
 * The default realm of the krb5.conf libkrb5 would read: the first file of `KRB5_CONFIG` (a
 * colon-separated list) that names one, else `/etc/krb5.conf`'s; `''` when none does, as
 * Hadoop's `KerberosName` takes it (its `DEFAULT` rule then maps no principal with a realm).
 *
 * @example
 * ```ts
 * const realm = krb5DefaultRealm(); // e.g. 'EXAMPLE.COM'
 * ```
 */
export function krb5DefaultRealm(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configured = env['KRB5_CONFIG'];
  const files = (configured === undefined || configured === '' ? DEFAULT_KRB5_CONFIG : configured)
    .split(':')
    .filter((file) => file !== '');
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const realm = parseKrb5DefaultRealm(text);
    if (realm !== undefined) return realm;
  }
  return '';
}
