import { FastpathError } from '@fastpath/core';

/** No usable `java` (or `javac`) executable. The message says what to install or set. */
export class JavaNotFoundError extends FastpathError {
  constructor(message: string) {
    super('ERR_JAVA_NOT_FOUND', message);
  }
}

/** No `mvn` executable: Maven resolution cannot run. The message says what to install. */
export class MavenNotFoundError extends FastpathError {
  constructor(message: string) {
    super('ERR_MAVEN_NOT_FOUND', message);
  }
}

/**
 * Maven could not resolve the dependencies of a pom. `artifact` names the first artifact Maven
 * reported as failing (`group:artifact[:type]:version`), when its output names one; `outputTail`
 * holds the end of Maven's output. Retriable: a repository may have been unreachable.
 */
export class MavenResolutionError extends FastpathError {
  readonly artifact: string | undefined;
  readonly outputTail: string;
  constructor(message: string, artifact: string | undefined, outputTail: string) {
    super('ERR_MAVEN_RESOLUTION', message, { retriable: true });
    this.artifact = artifact;
    this.outputTail = outputTail;
  }
}

/** `javac` rejected a source folder; `diagnostics` holds its output. */
export class JavaCompileError extends FastpathError {
  readonly diagnostics: string;
  constructor(sourceDir: string, diagnostics: string) {
    super('ERR_JAVA_COMPILE', `javac failed on ${sourceDir}:\n${diagnostics}`);
    this.diagnostics = diagnostics;
  }
}

/** A command run with `runProcess` did not finish within its bound and was killed. */
export class ProcessTimeoutError extends FastpathError {
  readonly command: string;
  readonly timeoutMs: number;
  readonly outputTail: string;
  constructor(command: string, timeoutMs: number, outputTail: string) {
    super(
      'ERR_PROCESS_TIMEOUT',
      `${command} did not finish within ${timeoutMs} ms and was killed` +
        (outputTail === '' ? '' : `; end of its output:\n${outputTail}`),
      { retriable: true },
    );
    this.command = command;
    this.timeoutMs = timeoutMs;
    this.outputTail = outputTail;
  }
}

/**
 * A Debian package a fixture needs is missing and could not be installed (not root, no
 * `apt-get`, installation disabled, or `apt-get` failed). `packages` names them; the message
 * says how to install them.
 */
export class DebianInstallError extends FastpathError {
  readonly packages: readonly string[];
  constructor(message: string, packages: readonly string[]) {
    super('ERR_DEBIAN_INSTALL', message);
    this.packages = Object.freeze([...packages]);
  }
}
