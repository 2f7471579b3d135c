import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { checkInteger, checkNonEmptyString, InvalidOptionError } from '@fastpath/core';
import { DebianInstallError, ensureDebianPackages, locateJava } from '@fastpath/jvm-fixture';
import { readEnvironment } from './internal/environment.js';
import { ZooKeeperNotFoundError } from './zookeeper-errors.js';

/** Where to look for ZooKeeper and Java, and whether to install ZooKeeper when it is missing. */
export interface ZooKeeperInstallationOptions {
  /**
   * An unpacked Apache ZooKeeper release (`lib/*.jar`, `conf/`). When set, it must hold a
   * ZooKeeper: there is no fallback to the system package. Default: the `ZOOKEEPER_HOME`
   * environment variable; an empty string ignores that variable.
   */
  zookeeperHome?: string;
  /** Directory holding Debian's `zookeeper.jar` (and `slf4j-simple.jar`). Default `/usr/share/java`. */
  systemJarDir?: string;
  /**
   * Install Debian's `zookeeper` package (`apt-get update && apt-get install -y zookeeper`) when
   * no ZooKeeper is found, the process runs as root and `apt-get` is on the PATH. Default `true`.
   */
  installIfMissing?: boolean;
  /** Upper bound for the whole installation, in milliseconds. Default 600000 (10 minutes). */
  installTimeoutMs?: number;
  /** The `java` executable. Default: `$JAVA_HOME/bin/java`, else `java` on the PATH. */
  javaPath?: string;
}

/** Defaults of {@link ZooKeeperInstallationOptions} (`zookeeperHome` and `javaPath` come from the environment). */
export const DEFAULT_ZOOKEEPER_INSTALLATION_OPTIONS = Object.freeze({
  systemJarDir: '/usr/share/java',
  installIfMissing: true,
  installTimeoutMs: 600_000,
});

/** A ZooKeeper that can be started: the Java executable and the class path of the server. */
export interface ZooKeeperInstallation {
  /** `zookeeper-home` for a `ZOOKEEPER_HOME` release, `system` for Debian's jars. */
  readonly source: 'zookeeper-home' | 'system';
  /** Entries of the server's class path (jars and, for a release, its `conf/` directory). */
  readonly classpath: readonly string[];
  /** The `java` executable. */
  readonly javaPath: string;
  /** Whether this call installed Debian's package. */
  readonly installed: boolean;
}

const ALTERNATIVE =
  'set ZOOKEEPER_HOME to an unpacked Apache ZooKeeper release (apache-zookeeper-<version>-bin)';

/**
 * Finds a runnable ZooKeeper: `ZOOKEEPER_HOME` (its `lib/*.jar` and `conf/`) or Debian's
 * `/usr/share/java/zookeeper.jar`, installing Debian's package when allowed, and a `java`.
 *
 * @throws ZooKeeperNotFoundError when there is no ZooKeeper (the message says what to install)
 * @throws JavaNotFoundError when there is no `java`
 * @example
 * ```ts
 * const { javaPath, classpath } = await locateZooKeeper({ installIfMissing: false });
 * ```
 */
export async function locateZooKeeper(
  options: ZooKeeperInstallationOptions = {},
): Promise<ZooKeeperInstallation> {
  const env = readEnvironment();
  const systemJarDir = checkNonEmptyString(
    'systemJarDir',
    options.systemJarDir ?? DEFAULT_ZOOKEEPER_INSTALLATION_OPTIONS.systemJarDir,
  );
  const installIfMissing =
    options.installIfMissing ?? DEFAULT_ZOOKEEPER_INSTALLATION_OPTIONS.installIfMissing;
  if (typeof installIfMissing !== 'boolean') {
    throw new InvalidOptionError('installIfMissing', `expected a boolean, got ${typeof installIfMissing}`);
  }
  const installTimeoutMs = checkInteger(
    'installTimeoutMs',
    options.installTimeoutMs ?? DEFAULT_ZOOKEEPER_INSTALLATION_OPTIONS.installTimeoutMs,
    1,
  );
  const home = options.zookeeperHome ?? env.zookeeperHome ?? '';

  let classpath: string[] | undefined;
  let source: ZooKeeperInstallation['source'];
  let installed = false;
  if (home !== '') {
    source = 'zookeeper-home';
    classpath = await releaseClasspath(home);
    if (classpath === undefined) {
      throw new ZooKeeperNotFoundError(
        `ZOOKEEPER_HOME (${home}) holds no ZooKeeper: expected lib/zookeeper-<version>.jar. Point it at ` +
          "an unpacked Apache ZooKeeper release, or unset it to use Debian's package " +
          '(as root: apt-get update && apt-get install -y zookeeper).',
      );
    }
  } else {
    source = 'system';
    classpath = await systemClasspath(systemJarDir);
    if (classpath === undefined) {
      try {
        installed =
          (
            await ensureDebianPackages(
              [{ file: join(systemJarDir, 'zookeeper.jar'), debianPackage: 'zookeeper' }],
              {
                installIfMissing,
                installTimeoutMs,
                purpose: 'ZooKeeper (no ZOOKEEPER_HOME)',
              },
            )
          ).installed.length > 0;
      } catch (err) {
        if (!(err instanceof DebianInstallError)) throw err;
        throw new ZooKeeperNotFoundError(`${err.message} Or ${ALTERNATIVE}.`, err);
      }
      classpath = await systemClasspath(systemJarDir);
      if (classpath === undefined) {
        throw new ZooKeeperNotFoundError(
          `${join(systemJarDir, 'zookeeper.jar')} is missing although Debian's zookeeper package is installed: ` +
            `reinstall it (as root: apt-get install --reinstall -y zookeeper) or ${ALTERNATIVE}.`,
        );
      }
    }
  }
  const { javaPath } = await locateJava({
    ...(options.javaPath === undefined ? {} : { javaPath: options.javaPath }),
    purpose: 'ZooKeeper needs Java 11 or newer',
  });
  return Object.freeze({ source, classpath: Object.freeze(classpath), javaPath, installed });
}

async function releaseClasspath(home: string): Promise<string[] | undefined> {
  const jars: string[] = [];
  for (const dir of [join(home, 'lib'), home]) {
    for (const name of await listDir(dir)) {
      if (name.endsWith('.jar')) jars.push(join(dir, name));
    }
  }
  if (!jars.some((jar) => /[/\\]zookeeper-\d[^/\\]*\.jar$/.test(jar))) return undefined;
  // conf/ carries the release's logging configuration (logback.xml or log4j.properties).
  const conf = join(home, 'conf');
  return (await isDirectory(conf)) ? [conf, ...jars] : jars;
}

async function systemClasspath(dir: string): Promise<string[] | undefined> {
  const server = join(dir, 'zookeeper.jar');
  if (!(await isFile(server))) return undefined;
  // Debian's jar names its dependencies in its manifest; slf4j-simple only makes the logs appear.
  const logging = join(dir, 'slf4j-simple.jar');
  return (await isFile(logging)) ? [server, logging] : [server];
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}
