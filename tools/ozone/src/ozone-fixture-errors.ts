import { FastpathError } from '@fastpath/core';

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

/** Ozone's Java client failed to read a key (a checksum mismatch, a missing block...); the message is its exception chain. */
export class OzoneKeyReadError extends FastpathError {
  readonly key: string;
  constructor(key: string, message: string) {
    super('ERR_OZONE_KEY_READ', `Ozone's Java client failed to read ${key}: ${message}`);
    this.key = key;
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

/**
 * Ozone's S3 gateway did not start in the cluster's JVM, or refused a bucket link; the message is
 * the Java exception chain (a missing class names the jar that is not on the class path).
 */
export class OzoneS3GatewayError extends FastpathError {
  constructor(message: string) {
    super('ERR_OZONE_S3_GATEWAY', `Ozone's S3 gateway: ${message}`);
  }
}

/** An OM of an HA cluster could not be stopped, restarted or made leader; `message` is the Java side's. */
export class OzoneOmControlError extends FastpathError {
  readonly operation: string;
  readonly nodeId: string | undefined;
  constructor(operation: string, nodeId: string | undefined, message: string) {
    super(
      'ERR_OZONE_OM_CONTROL',
      `${operation}${nodeId === undefined ? '' : ` ${nodeId}`} failed: ${message}`,
    );
    this.operation = operation;
    this.nodeId = nodeId;
  }
}
