import { InvalidOptionError } from '@fastpath/core';

/**
 * The KMS base URLs of a Hadoop key provider URI (`hadoop.security.key.provider.path`), as
 * Hadoop's `KMSClientProvider.Factory` reads it: `kms://http@host:9600/kms` is
 * `http://host:9600/kms`; several hosts joined by `;` share the port and path
 * (`kms://https@h1;h2:9600/kms`), one KMS each, which Hadoop load-balances. Plain `http(s)://`
 * URLs are taken as one KMS.
 */
export function keyProviderUrls(uri: string, option = 'hadoop.security.key.provider.path'): string[] {
  const text = uri.trim();
  const m = /^kms:\/\/(https?)@([^/]+)(\/.*)?$/i.exec(text);
  if (!m) {
    if (/^https?:\/\//i.test(text)) return [text];
    throw new InvalidOptionError(option, `expected kms://http@host:port/kms, got ${JSON.stringify(uri)}`);
  }
  const scheme = (m[1] as string).toLowerCase();
  const authority = m[2] as string;
  const path = m[3] ?? '/kms';
  // The port follows the last host: "h1;h2:9600".
  const portMatch = /:(\d+)$/.exec(authority);
  const hosts = (portMatch ? authority.slice(0, portMatch.index) : authority).split(';');
  if (hosts.some((h) => h.trim() === ''))
    throw new InvalidOptionError(option, `an empty host in ${JSON.stringify(uri)}`);
  const port = portMatch ? `:${portMatch[1] as string}` : '';
  return hosts.map((h) => `${scheme}://${h.trim()}${port}${path}`);
}
