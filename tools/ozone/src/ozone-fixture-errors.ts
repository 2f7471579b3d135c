import { FastpathError } from '@fastpath/core';

/**
 * Maven could not resolve Ozone's jars (Maven Central refused or lacks an artifact, no network, no
 * `mvn`). `artifact` names the first coordinate Maven reported missing, when it named one.
 *
 * @example
 * ```ts
 * try {
 *   await prepareOzoneJars();
 * } catch (err) {
 *   if (err instanceof OzoneJarsUnavailableError) console.error(err.artifact, err.mavenTail);
 * }
 * ```
 */
export class OzoneJarsUnavailableError extends FastpathError {
  /** e.g. `org.apache.ozone:hdds-hadoop-dependency-client:pom:2.2.0`, or `undefined`. */
  readonly artifact: string | undefined;
  /** The last lines Maven printed. */
  readonly mavenTail: string;
  constructor(message: string, artifact: string | undefined, mavenTail: string) {
    super('ERR_OZONE_JARS_UNAVAILABLE', message, { retriable: true });
    this.artifact = artifact;
    this.mavenTail = mavenTail;
  }
}

/** `javac` failed on the launcher sources, or no JDK (`javac`) was found. */
export class OzoneLauncherBuildError extends FastpathError {
  constructor(message: string) {
    super('ERR_OZONE_LAUNCHER_BUILD', message);
  }
}

/**
 * The cluster JVM exited, or reported a failure, before it was ready or while a request was in
 * flight. `logTail` holds the end of the cluster's log.
 */
export class OzoneClusterExitedError extends FastpathError {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly logTail: string;
  constructor(what: string, exitCode: number | null, signal: string | null, logTail: string) {
    super('ERR_OZONE_CLUSTER_EXITED', `${what}; end of the cluster log:\n${logTail}`);
    this.exitCode = exitCode;
    this.signal = signal;
    this.logTail = logTail;
  }
}

/** A bounded wait ran out: the cluster did not become ready, a write did not finish, a stop hung. */
export class OzoneClusterTimeoutError extends FastpathError {
  readonly waitedFor: string;
  readonly timeoutMs: number;
  readonly logTail: string;
  constructor(waitedFor: string, timeoutMs: number, logTail: string) {
    super(
      'ERR_OZONE_CLUSTER_TIMEOUT',
      `timed out after ${timeoutMs} ms waiting for ${waitedFor}; end of the cluster log:\n${logTail}`,
      { retriable: true },
    );
    this.waitedFor = waitedFor;
    this.timeoutMs = timeoutMs;
    this.logTail = logTail;
  }
}

/** Ozone's Java client refused a write (the launcher's answer is the message). */
export class OzoneKeyWriteError extends FastpathError {
  constructor(message: string) {
    super('ERR_OZONE_KEY_WRITE', `Ozone's Java client failed to write keys: ${message}`);
  }
}

/** MiniOzoneCluster refused to stop or restart a datanode; the message is its exception chain. */
export class OzoneDatanodeControlError extends FastpathError {
  readonly operation: string;
  readonly uuid: string;
  constructor(operation: string, uuid: string, message: string) {
    super('ERR_OZONE_DATANODE_CONTROL', `${operation} ${uuid} failed: ${message}`);
    this.operation = operation;
    this.uuid = uuid;
  }
}

/** A call the cluster's state does not allow: any call after `stop()`; a block not found once on a datanode. */
export class OzoneFixtureStateError extends FastpathError {
  constructor(message: string) {
    super('ERR_OZONE_FIXTURE_STATE', message);
  }
}
