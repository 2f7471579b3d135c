// FileSystem.get and FileSystem.newInstance: instances cached per scheme, authority and user,
// unless `fs.<scheme>.impl.disable.cache` is true. HBase's pattern needs the uncached kind: its
// no-checksum instance must not be the one everything else shares.
import { userInfo } from 'node:os';
import { OzoneFileSystem, type OzoneFileSystemOptions } from './ozone-file-system.js';
import { authorityText, parseOzoneUri } from './ozone-path.js';

const cache = new Map<string, OzoneFileSystem>();

function cacheKey(uri: string, options: OzoneFileSystemOptions): string {
  const { authority } = parseOzoneUri(uri);
  return `${authority.scheme}://${authorityText(authority)}\u0000${options.userName ?? userInfo().username}`;
}

function cacheDisabled(uri: string, options: OzoneFileSystemOptions): boolean {
  const key = `fs.${parseOzoneUri(uri).authority.scheme}.impl.disable.cache`;
  const p = options.properties;
  // Taken as unknown: `instanceof Map` narrows the properties to Map<any, any>.
  const value: unknown =
    p instanceof Map ? p.get(key) : (p as Readonly<Record<string, string>> | undefined)?.[key];
  return typeof value === 'string' && value.trim().toLowerCase() === 'true';
}

/** The shared instance for the URI's scheme and authority and the user (created on first use). */
export function getFileSystem(uri: string, options: OzoneFileSystemOptions = {}): OzoneFileSystem {
  if (cacheDisabled(uri, options)) return newFileSystemInstance(uri, options);
  const key = cacheKey(uri, options);
  const cached = cache.get(key);
  if (cached && !cached.closed) return cached;
  const fs = new OzoneFileSystem(uri, options, () => {
    if (cache.get(key) === fs) cache.delete(key);
  });
  cache.set(key, fs);
  return fs;
}

/** A new instance that nothing else shares (its own client and settings). */
export function newFileSystemInstance(uri: string, options: OzoneFileSystemOptions = {}): OzoneFileSystem {
  return new OzoneFileSystem(uri, options);
}

/** Closes every cached instance (Hadoop's `FileSystem.closeAll`). */
export function closeAllFileSystems(): void {
  for (const fs of [...cache.values()]) fs.close();
  cache.clear();
}
