import { realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readJvmEnvironment } from './environment.js';
import { ensureDebianPackages } from './debian-packages.js';
import { findExecutable, isExecutable } from './find-executable.js';
import { DebianInstallError, JavaNotFoundError } from './jvm-errors.js';

/**
 * What provides `java` and `javac` on Debian: one JDK for both, so that a fixture that needs a
 * JRE today and `javac` tomorrow installs once.
 */
export const JAVA_REQUIREMENTS = Object.freeze([
  Object.freeze({ command: 'java', debianPackage: 'openjdk-17-jdk-headless' }),
  Object.freeze({ command: 'javac', debianPackage: 'openjdk-17-jdk-headless' }),
]);

/** Where to look for Java. */
export interface LocateJavaOptions {
  /** The `java` executable. Default: `$JAVA_HOME/bin/java`, else `java` on the PATH. */
  javaPath?: string;
  /** Also find `javac` (a JDK, not only a JRE). Default `false`. */
  requireJavac?: boolean;
  /** Who needs Java, for the message when it is missing (e.g. `ZooKeeper needs Java 11 or newer`). */
  purpose?: string;
  /**
   * Install Debian's `openjdk-17-jdk-headless` when there is no `java` (or, with `requireJavac`,
   * no `javac`) on the PATH, no `JAVA_HOME` and no `javaPath`, and the process is root with
   * `apt-get`. Default `true`.
   */
  installIfMissing?: boolean;
}

/** A `java` (and, when asked for, the `javac` of the same JDK). */
export interface JavaInstallation {
  readonly javaPath: string;
  /** `undefined` unless `requireJavac` was set. */
  readonly javacPath: string | undefined;
}

/**
 * Finds `java` through `javaPath`, `JAVA_HOME` or the PATH, and `javac` beside it (the real
 * location of `java`, following Debian's alternatives links) or on the PATH.
 *
 * @throws JavaNotFoundError naming what to install or set
 * @example
 * ```ts
 * const { javaPath, javacPath } = await locateJava({ requireJavac: true });
 * ```
 */
export async function locateJava(options: LocateJavaOptions = {}): Promise<JavaInstallation> {
  const env = readJvmEnvironment();
  const purpose = options.purpose ?? 'this needs Java 11 or newer';
  const hint =
    options.requireJavac === true
      ? `${purpose}: install a JDK (as root: apt-get install -y openjdk-17-jdk-headless) or set JAVA_HOME`
      : `${purpose}: install a JRE (as root: apt-get install -y default-jre-headless) or set JAVA_HOME`;
  let javaPath: string | undefined;
  if (options.javaPath !== undefined) {
    if (!(await isExecutable(options.javaPath))) {
      throw new JavaNotFoundError(`javaPath ${options.javaPath} is not an executable file; ${hint}.`);
    }
    javaPath = options.javaPath;
  } else if (env.javaHome !== undefined) {
    javaPath = join(env.javaHome, 'bin', 'java');
    if (!(await isExecutable(javaPath))) {
      throw new JavaNotFoundError(`JAVA_HOME (${env.javaHome}) has no bin/java; ${hint}.`);
    }
  } else {
    // Only here, with nothing configured, is the machine's Java ours to install.
    await installJdkIfMissing(options, purpose);
    javaPath = await findExecutable('java', env.path);
    if (javaPath === undefined) throw new JavaNotFoundError(`no "java" on the PATH; ${hint}.`);
  }
  if (options.requireJavac !== true) return Object.freeze({ javaPath, javacPath: undefined });
  const beside = join(dirname(await realpath(javaPath)), 'javac');
  const javacPath = (await isExecutable(beside)) ? beside : await findExecutable('javac', env.path);
  if (javacPath === undefined) {
    throw new JavaNotFoundError(`no "javac" beside ${javaPath} or on the PATH (a JRE, not a JDK); ${hint}.`);
  }
  return Object.freeze({ javaPath, javacPath });
}

async function installJdkIfMissing(options: LocateJavaOptions, purpose: string): Promise<void> {
  const needed = options.requireJavac === true ? JAVA_REQUIREMENTS : JAVA_REQUIREMENTS.slice(0, 1);
  try {
    await ensureDebianPackages(needed, { installIfMissing: options.installIfMissing ?? true, purpose });
  } catch (err) {
    if (err instanceof DebianInstallError) throw new JavaNotFoundError(err.message);
    throw err;
  }
}
