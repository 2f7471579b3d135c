// Loads a bundled command of this package (one CommonJS file in dist/) through a V8 code cache
// kept between runs, so a short-lived command compiles little (see docs/cold-start.md). The cache
// is a hint, never trusted: @fastpath/client-warmup's requireWithCodeCache uses it only when it
// was made from the same file by the same Node, and rebuilds it otherwise.
//   FASTPATH_CODE_CACHE=off       load the bundle without a cache
//   FASTPATH_CODE_CACHE_DIR=<dir> where caches go (default $XDG_CACHE_HOME/fastpath, else
//                                 ~/.cache/fastpath)
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { debuglog } from 'node:util';

const debug = debuglog('fastpath-warmup');

/** The cache folder the environment names; undefined when there is none to use. */
export function codeCacheDir(env) {
  if (env.FASTPATH_CODE_CACHE_DIR) return env.FASTPATH_CODE_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'fastpath');
  const home = env.HOME || homedir();
  return home ? join(home, '.cache', 'fastpath') : undefined;
}

/** Runs `bundle` (an absolute path); `name` names its cache file. */
export async function loadBundle(bundle, name, env = process.env) {
  const dir = env.FASTPATH_CODE_CACHE === 'off' ? undefined : codeCacheDir(env);
  if (dir !== undefined) {
    let requireWithCodeCache;
    try {
      ({ requireWithCodeCache } = await import('@fastpath/client-warmup'));
    } catch (err) {
      debug('code cache unavailable (%s): loading %s without one', err.message, bundle);
    }
    if (requireWithCodeCache) {
      // One cache per bundle file: two installed versions never overwrite each other's.
      const tag = createHash('sha256').update(bundle).digest('hex').slice(0, 12);
      const cacheFile = join(dir, `${name}-${tag}.v8cache`);
      const { cache } = requireWithCodeCache(bundle, { cacheFile });
      debug('code cache result %s: %s', cacheFile, cache);
      return;
    }
  }
  createRequire(import.meta.url)(bundle);
}
