import { ensureDebianPackages } from './debian-packages.js';
import { readJvmEnvironment } from './environment.js';
import { findExecutable, isExecutable } from './find-executable.js';
import { DebianInstallError, MavenNotFoundError } from './jvm-errors.js';

/** Where to look for Maven. */
export interface LocateMavenOptions {
  /** The `mvn` executable. Default: `mvn` on the PATH. */
  mvnPath?: string;
  /** Install Debian's `maven` when there is no `mvn` and the process is root with `apt-get`. Default `true`. */
  installIfMissing?: boolean;
}

/** What provides `mvn` on Debian. */
export const MAVEN_REQUIREMENTS = Object.freeze([Object.freeze({ command: 'mvn', debianPackage: 'maven' })]);

/**
 * Finds `mvn` (`mvnPath`, else the PATH), installing Debian's `maven` when it is missing and the
 * process can (root with `apt-get`).
 *
 * @throws MavenNotFoundError naming what to install
 * @example
 * ```ts
 * const mvn = await locateMaven();
 * ```
 */
export async function locateMaven(options: LocateMavenOptions = {}): Promise<string> {
  if (options.mvnPath !== undefined) {
    if (!(await isExecutable(options.mvnPath))) {
      throw new MavenNotFoundError(`mvnPath ${options.mvnPath} is not an executable file`);
    }
    return options.mvnPath;
  }
  const found = await findExecutable('mvn', readJvmEnvironment().path);
  if (found !== undefined) return found;
  try {
    await ensureDebianPackages(MAVEN_REQUIREMENTS, {
      installIfMissing: options.installIfMissing ?? true,
      purpose: 'resolving jars (Maven 3.6 or newer)',
    });
  } catch (err) {
    if (err instanceof DebianInstallError)
      throw new MavenNotFoundError(`no "mvn" on the PATH: ${err.message}`);
    throw err;
  }
  const installed = await findExecutable('mvn', readJvmEnvironment().path);
  if (installed === undefined)
    throw new MavenNotFoundError('installed Debian\'s maven, but "mvn" is still not on the PATH');
  return installed;
}
