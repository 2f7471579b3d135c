// Ozone's two file-system URI forms and their path rules.
//   ofs://<om>[:port]/<volume>/<bucket>/<key…>   (rooted: volumes and buckets are the top levels)
//   o3fs://<bucket>.<volume>[.<om>[:port]]/<key…> (one bucket; the path is the key)
// The OM part is a host (its port is the OM's gRPC port here, as fastpath speaks gRPC to the OM;
// without one the client uses `ozone.om.grpc.port`) or an OM service id of `ozone.om.service.ids`
// (OM HA: `ofs://<serviceId>/`, `o3fs://bucket.volume.<serviceId>/`; no port then).
import { posix } from 'node:path';
import { InvalidPathError } from './file-system-errors.js';

/** The two Ozone file-system schemes: `ofs` (rooted, every volume and bucket) and `o3fs` (one bucket). */
export type OzoneScheme = 'ofs' | 'o3fs';

/** What a file-system URI names: the scheme, the OM, and (o3fs) its one volume and bucket. */
export interface OzoneFsAuthority {
  /** The URI's scheme, lower-cased. */
  scheme: OzoneScheme;
  /** `host[:port]` of the OM or an OM service id, or '' when the URI gives none (then `ozone.om.address`). */
  omHost: string;
  /** o3fs only: the volume of the authority (`bucket.volume[.om]`); undefined for ofs. */
  volume?: string;
  /** o3fs only: the bucket of the authority; undefined for ofs. */
  bucket?: string;
}

/** A resolved path: which level of Ozone's namespace it names. */
export interface OzonePathParts {
  /** The normalized absolute path ('/' for the root). */
  path: string;
  volume?: string;
  bucket?: string;
  /** The key within the bucket, no leading or trailing slash ('' = the bucket itself). */
  key: string;
}

const SCHEMES: readonly OzoneScheme[] = ['ofs', 'o3fs'];

/** Parses `ofs://om/…` or `o3fs://bucket.volume.om/…`; returns the authority and the path part. */
export function parseOzoneUri(uri: string): {
  /** What the URI's authority names: scheme, OM, and for o3fs the volume and bucket. */
  authority: OzoneFsAuthority;
  /** The path part as written, not normalized ('/' when the URI has none); query and fragment are refused. */
  path: string;
} {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)([^?#]*)$/.exec(uri);
  if (!m)
    throw new InvalidPathError(
      uri,
      'expected ofs://<om>/<volume>/<bucket>/<key> or o3fs://<bucket>.<volume>.<om>/<key>',
    );
  const scheme = (m[1] as string).toLowerCase();
  if (!SCHEMES.includes(scheme as OzoneScheme))
    throw new InvalidPathError(uri, `scheme ${scheme} is not ofs or o3fs`);
  const host = m[2] as string;
  const path = (m[3] as string) || '/';
  if (scheme === 'ofs') return { authority: { scheme: 'ofs', omHost: host }, path };
  // o3fs: bucket.volume[.om-host[:port]] — the OM host may hold dots itself, so split twice only.
  const first = host.indexOf('.');
  const second = first < 0 ? -1 : host.indexOf('.', first + 1);
  if (first <= 0) throw new InvalidPathError(uri, 'an o3fs authority is <bucket>.<volume>[.<om-host>]');
  const bucket = host.slice(0, first);
  const volume = second < 0 ? host.slice(first + 1) : host.slice(first + 1, second);
  const omHost = second < 0 ? '' : host.slice(second + 1);
  if (!volume) throw new InvalidPathError(uri, 'an o3fs authority is <bucket>.<volume>[.<om-host>]');
  return { authority: { scheme: 'o3fs', omHost, volume, bucket }, path };
}

/** The canonical text of an authority, the cache key part and the URI prefix of every path. */
export function authorityText(a: OzoneFsAuthority): string {
  return a.scheme === 'ofs' ? a.omHost : [a.bucket, a.volume, a.omHost].filter(Boolean).join('.');
}

/**
 * Normalizes an absolute path as Hadoop's Path does (repeated and trailing slashes, `.` and `..`
 * resolved) and checks each part as Ozone's file systems do (no `:`, nothing control-like).
 */
export function normalizePath(raw: string, workingDirectory = '/'): string {
  if (typeof raw !== 'string' || raw.length === 0) throw new InvalidPathError(String(raw), 'empty path');
  const joined = raw.startsWith('/') ? raw : posix.join(workingDirectory, raw);
  const normal = posix.normalize(joined).replace(/\/+$/, '') || '/';
  for (const part of normal.split('/')) {
    if (part.includes(':')) throw new InvalidPathError(raw, `"${part}" holds a ':'`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(part))
      throw new InvalidPathError(raw, 'a control character in the path');
  }
  return normal;
}

/** Maps a normalized absolute path to volume, bucket and key for the authority's scheme. */
export function splitOzonePath(authority: OzoneFsAuthority, path: string): OzonePathParts {
  const parts = path.split('/').filter((p) => p !== '');
  if (authority.scheme === 'o3fs') {
    return {
      path,
      volume: authority.volume as string,
      bucket: authority.bucket as string,
      key: parts.join('/'),
    };
  }
  const [volume, bucket, ...rest] = parts;
  return {
    path,
    ...(volume !== undefined ? { volume } : {}),
    ...(bucket !== undefined ? { bucket } : {}),
    key: rest.join('/'),
  };
}

/** The path of an OM key for the scheme (the inverse of {@link splitOzonePath}). */
export function pathOfKey(authority: OzoneFsAuthority, volume: string, bucket: string, key: string): string {
  const tail = key === '' ? '' : `/${key}`;
  return authority.scheme === 'o3fs' ? tail || '/' : `/${volume}/${bucket}${tail}`;
}
