// Loads a CommonJS file (typically a whole client bundled into one file) through V8's code cache,
// kept in a file between processes: Node 20 has no module.enableCompileCache, so the file is
// compiled with vm.Script and its cachedData. The cache is a hint, never trusted: it is used only
// when its header names the same source (SHA-256), Node version and flags, and the SHA-256 of the
// cached bytes matches; anything else (stale, truncated, corrupt) is ignored and rebuilt after the
// run. The digest is ours because V8 is no guard here: Node 20's V8 accepted a code cache with
// every byte flipped (cachedDataRejected false).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { debuglog } from 'node:util';
import vm from 'node:vm';

const debug = debuglog('fastpath-warmup');
const MAGIC = 'fastpath-code-cache-1';

/** What {@link requireWithCodeCache} did with the cache file. */
export type CodeCacheUse = 'used' | 'rejected' | 'absent';
// 'rejected': a cache file was there but was not for this source and runtime, or was damaged.

/** How {@link requireWithCodeCache} finds and writes its cache file. Every field is optional. */
export interface CodeCacheOptions {
  /** Where the cache lives. Default: `<file>.v8cache`. */
  cacheFile?: string;
  /**
   * When to write the cache: `exit` (the default) writes it as the process exits, after the run, so
   * functions compiled lazily during the run are in it too; `now` writes it right after loading.
   */
  writeAt?: 'exit' | 'now';
}

/** What {@link requireWithCodeCache} loaded, and whether the cache file helped. */
export interface CodeCacheResult<T> {
  /** The file's `module.exports` after it ran, as `require(file)` would return it. */
  exports: T;
  /**
   * Whether the compile used the cache file: `used`, `absent` (no file; one is written), or
   * `rejected` (for another source or runtime, damaged, or refused by V8; it is rewritten).
   */
  cache: CodeCacheUse;
}

function header(source: string): string {
  const digest = createHash('sha256').update(source).digest('hex');
  return `${MAGIC} ${digest} ${process.version} ${process.arch} ${process.execArgv.join(' ')}\n`;
}

const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');
const DIGEST_LINE_BYTES = 65; // 64 hex digits and a newline

/** The cached bytes if the file is there and is ours for this source and runtime; 'rejected' if it is there but not. */
function readCache(cacheFile: string, expected: string): Buffer | 'rejected' | undefined {
  let raw: Buffer;
  try {
    raw = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  const head = Buffer.from(expected);
  const start = head.length + DIGEST_LINE_BYTES;
  if (raw.length <= start || !raw.subarray(0, head.length).equals(head)) {
    debug('code cache %s is for another source or runtime: ignored', cacheFile);
    return 'rejected';
  }
  const data = raw.subarray(start);
  if (raw.subarray(head.length, start - 1).toString('latin1') !== sha256(data)) {
    debug('code cache %s is damaged: ignored', cacheFile);
    return 'rejected';
  }
  return data;
}

function writeCache(cacheFile: string, head: string, data: Buffer): void {
  try {
    mkdirSync(dirname(cacheFile), { recursive: true });
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([Buffer.from(`${head}${sha256(data)}\n`), data]));
    renameSync(tmp, cacheFile); // readers see the old file or the new one, never half of one
  } catch (err) {
    debug('cannot write code cache %s: %s', cacheFile, (err as Error).message);
  }
}

/**
 * `require(file)`, compiled through a V8 code cache file. Throws only what loading the file
 * itself throws; every cache problem falls back to a plain compile.
 *
 * @example
 * ```ts
 * const { exports } = requireWithCodeCache<typeof import('./client.cjs')>('/opt/app/client.cjs');
 * ```
 */
export function requireWithCodeCache<T = unknown>(
  file: string,
  options: CodeCacheOptions = {},
): CodeCacheResult<T> {
  const cacheFile = options.cacheFile ?? `${file}.v8cache`;
  const source = readFileSync(file, 'utf8');
  const head = header(source);
  const found = readCache(cacheFile, head);
  const cachedData = Buffer.isBuffer(found) ? found : undefined;
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const cache: CodeCacheUse =
    found === 'rejected' || script.cachedDataRejected === true ? 'rejected' : cachedData ? 'used' : 'absent';
  if (cache === 'rejected') debug('V8 rejected code cache %s: rebuilt', cacheFile);
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  const mod = { exports: {} as unknown };
  wrapper.call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
  if (cache !== 'used') {
    if (options.writeAt === 'now') writeCache(cacheFile, head, script.createCachedData());
    else process.once('exit', () => writeCache(cacheFile, head, script.createCachedData()));
  }
  return { exports: mod.exports as T, cache };
}
