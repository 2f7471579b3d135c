import { InvalidOptionError } from '@fastpath/core';

/**
 * The base URL of a KMS from what users write: `http(s)://host:port/kms`, a bare
 * `http://host:port` (the KMS lives under `/kms`), or Hadoop's provider URI
 * `kms://http@host:port/kms`. A trailing `/v1` is dropped: the client adds it.
 */
export function parseKmsUrl(value: unknown): URL {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidOptionError('url', 'expected the KMS base URL, e.g. "http://127.0.0.1:9600/kms"');
  }
  let text = value.trim();
  const provider = /^kms:\/\/(https?)@(.+)$/i.exec(text);
  if (provider) {
    if ((provider[2] as string).includes(';')) {
      throw new InvalidOptionError('url', 'several hosts in one kms:// URI are not supported; give one');
    }
    text = `${(provider[1] as string).toLowerCase()}://${provider[2] as string}`;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidOptionError('url', `not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidOptionError('url', `expected http, https or kms://http(s)@, got "${url.protocol}"`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new InvalidOptionError(
      'url',
      'credentials in the URL are not supported: use the user or delegationToken option',
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new InvalidOptionError('url', 'the URL must not have a query or fragment');
  }
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/v1')) path = path.slice(0, -3);
  if (path === '') path = '/kms';
  url.pathname = path;
  return url;
}
