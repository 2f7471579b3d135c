import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { checkInteger, checkNonEmptyString, InvalidOptionError } from '@fastpath/core';
import { readJvmEnvironment } from './environment.js';
import { isFile } from './find-executable.js';
import { downloadedBytes, errorLines, failingArtifact, isTransferLine } from './internal/maven-output.js';
import { MavenResolutionError } from './jvm-errors.js';
import { locateMaven } from './locate-maven.js';
import { runProcess } from './run-process.js';

/** What to resolve and where to keep the result. */
export interface ResolveMavenArtifactsOptions {
  /** Folder holding the `pom.xml` whose dependencies are resolved. */
  pomDir: string;
  /** Folder (git-ignored) for `classpath.txt`, `resolution.json` and, with `copyJars`, `lib/`. */
  cacheDir: string;
  /** Also copy the jars into `<cacheDir>/lib` and point the class path there. Default `false`. */
  copyJars?: boolean;
  /**
   * `true`: run Maven offline (`-o`), failing on anything not yet downloaded. `false`: run Maven
   * even when the cache is complete. Default `'auto'`: no Maven run at all when the cache matches
   * the pom and every jar is present, else an online run.
   */
  offline?: boolean | 'auto';
  /**
   * Maven's local repository (`-Dmaven.repo.local`). Default: `FASTPATH_MAVEN_REPO_LOCAL` when
   * set, else nothing is passed and Maven uses its own default, so repeated runs reuse downloads.
   */
  repoLocal?: string;
  /** The `mvn` executable. Default: `mvn` on the PATH. */
  mvnPath?: string;
  /** Upper bound for the Maven run. Default 1800000 (30 minutes: a first Hadoop resolution downloads ~50 MB). */
  timeoutMs?: number;
  /** Receives progress lines (each download). Default: written to stderr with a `[maven]` prefix. */
  onProgress?: (line: string) => void;
}

export const DEFAULT_RESOLVE_MAVEN_ARTIFACTS_OPTIONS = Object.freeze({
  copyJars: false,
  offline: 'auto' as const,
  timeoutMs: 1_800_000,
});

// Pinned so that a clean machine resolves with the same plugin the cache was made with.
const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';

/** A resolved class path and what it took to get it. */
export interface MavenResolution {
  /** Jar paths in Maven's order. */
  readonly classpath: readonly string[];
  /** `none` when the cache was complete and Maven did not run. */
  readonly maven: 'online' | 'offline' | 'none';
  /** Artifacts Maven downloaded during this call, and their total size in bytes. */
  readonly downloads: number;
  readonly downloadedBytes: number;
  /** Total size of the jars on the class path, in bytes. */
  readonly classpathBytes: number;
  readonly durationMs: number;
}

interface CacheStamp {
  readonly key: string;
  readonly classpath: readonly string[];
}

/**
 * Resolves the dependencies of `<pomDir>/pom.xml` with Maven
 * (`mvn -B dependency:build-classpath`, plus `copy-dependencies` with `copyJars`), printing each
 * download, and keeps the class path in `cacheDir`. Once resolved, later calls do not run Maven.
 *
 * @throws MavenNotFoundError when there is no `mvn` and it cannot be installed
 * @throws MavenResolutionError naming the first artifact that failed (`error.artifact`)
 * @example
 * ```ts
 * const { classpath } = await resolveMavenArtifacts({ pomDir: here, cacheDir: join(here, 'cache') });
 * ```
 */
export async function resolveMavenArtifacts(options: ResolveMavenArtifactsOptions): Promise<MavenResolution> {
  const started = Date.now();
  const pomDir = resolve(checkNonEmptyString('pomDir', options.pomDir));
  const cacheDir = resolve(checkNonEmptyString('cacheDir', options.cacheDir));
  const copyJars = options.copyJars ?? DEFAULT_RESOLVE_MAVEN_ARTIFACTS_OPTIONS.copyJars;
  const offline = options.offline ?? DEFAULT_RESOLVE_MAVEN_ARTIFACTS_OPTIONS.offline;
  if (offline !== 'auto' && typeof offline !== 'boolean') {
    throw new InvalidOptionError('offline', `expected true, false or 'auto', got ${String(offline)}`);
  }
  const timeoutMs = checkInteger(
    'timeoutMs',
    options.timeoutMs ?? DEFAULT_RESOLVE_MAVEN_ARTIFACTS_OPTIONS.timeoutMs,
    1,
  );
  const env = readJvmEnvironment();
  const repoLocal = options.repoLocal ?? env.mavenRepoLocal;
  const onProgress = options.onProgress ?? ((line: string) => process.stderr.write(`[maven] ${line}\n`));

  let pom: Buffer;
  try {
    pom = await readFile(join(pomDir, 'pom.xml'));
  } catch (err) {
    throw new InvalidOptionError('pomDir', `no readable pom.xml in ${pomDir}: ${(err as Error).message}`);
  }
  const key = createHash('sha256')
    .update(pom)
    .update(`\0${String(copyJars)}\0${repoLocal ?? ''}`)
    .digest('hex');
  const stampFile = join(cacheDir, 'resolution.json');

  if (offline === 'auto') {
    const cached = await readStamp(stampFile);
    if (cached?.key === key && (await allFiles(cached.classpath))) {
      return finish(cached.classpath, 'none', 0, 0, started);
    }
  }

  const mvn = await locateMaven(options.mvnPath === undefined ? {} : { mvnPath: options.mvnPath });
  await mkdir(cacheDir, { recursive: true });
  const classpathFile = join(cacheDir, 'classpath.txt');
  const libDir = join(cacheDir, 'lib');
  if (copyJars) await rm(libDir, { recursive: true, force: true });
  const args = [
    '-B',
    ...(offline === true ? ['-o'] : []),
    ...(repoLocal === undefined ? [] : [`-Dmaven.repo.local=${repoLocal}`]),
    '-f',
    join(pomDir, 'pom.xml'),
    ...(copyJars
      ? [`${DEPENDENCY_PLUGIN}:copy-dependencies`, `-DoutputDirectory=${libDir}`, `-Dmdep.prefix=${libDir}`]
      : []),
    `${DEPENDENCY_PLUGIN}:build-classpath`,
    `-Dmdep.outputFile=${classpathFile}`,
  ];
  onProgress(
    `resolving ${join(pomDir, 'pom.xml')} (${offline === true ? 'offline' : 'online'}; a first run downloads every jar)`,
  );
  let downloads = 0;
  let bytes = 0;
  const result = await runProcess(mvn, args, {
    cwd: pomDir,
    timeoutMs,
    onLine(line) {
      if (!isTransferLine(line)) return;
      const size = downloadedBytes(line);
      if (size !== undefined) {
        downloads += 1;
        bytes += size;
      }
      onProgress(line.replace(/^\[INFO\] /, ''));
    },
  });
  const output = `${result.stdout}\n${result.stderr}`;
  if (result.code !== 0) {
    const artifact = failingArtifact(output);
    const errors = errorLines(output).slice(0, 3).join('\n');
    const tail = output.trim().split('\n').slice(-30).join('\n');
    throw new MavenResolutionError(
      `Maven could not resolve ${join(pomDir, 'pom.xml')}` +
        (artifact === undefined ? '' : `: ${artifact} failed`) +
        ` (mvn exit ${String(result.code)}${offline === true ? ', offline' : ''})` +
        (errors === '' ? '' : `:\n${errors}`),
      artifact,
      tail,
    );
  }
  const text = (await readFile(classpathFile, 'utf8')).trim();
  const classpath = text === '' ? [] : text.split(':');
  await writeFile(stampFile, `${JSON.stringify({ key, classpath } satisfies CacheStamp, null, 2)}\n`);
  return finish(classpath, offline === true ? 'offline' : 'online', downloads, bytes, started);
}

async function finish(
  classpath: readonly string[],
  maven: MavenResolution['maven'],
  downloads: number,
  downloadedBytes: number,
  started: number,
): Promise<MavenResolution> {
  let classpathBytes = 0;
  for (const jar of classpath) classpathBytes += (await stat(jar)).size;
  return Object.freeze({
    classpath: Object.freeze([...classpath]),
    maven,
    downloads,
    downloadedBytes,
    classpathBytes,
    durationMs: Date.now() - started,
  });
}

async function readStamp(file: string): Promise<CacheStamp | undefined> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<CacheStamp>;
    if (typeof value.key !== 'string' || !Array.isArray(value.classpath)) return undefined;
    return { key: value.key, classpath: value.classpath.filter((e): e is string => typeof e === 'string') };
  } catch {
    return undefined;
  }
}

async function allFiles(files: readonly string[]): Promise<boolean> {
  for (const file of files) if (!(await isFile(file))) return false;
  return true;
}
