import { FastpathError } from '@fastpath/core';

/** The Hadoop KMS JVM exited before it answered HTTP; `logTail` holds the end of its log. */
export class HadoopKmsExitedError extends FastpathError {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly logTail: string;
  constructor(exitCode: number | null, signal: string | null, logTail: string) {
    super(
      'ERR_HADOOP_KMS_EXITED',
      `the Hadoop KMS exited (${signal === null ? `code ${String(exitCode)}` : `signal ${signal}`}) before it ` +
        `served; end of its log:\n${logTail}`,
    );
    this.exitCode = exitCode;
    this.signal = signal;
    this.logTail = logTail;
  }
}

/** The Hadoop KMS did not answer HTTP within `startTimeoutMs` (or did not exit after SIGKILL). */
export class HadoopKmsTimeoutError extends FastpathError {
  readonly logTail: string;
  constructor(waitedFor: string, timeoutMs: number, logTail: string) {
    super(
      'ERR_HADOOP_KMS_TIMEOUT',
      `timed out after ${timeoutMs} ms waiting for ${waitedFor}; end of its log:\n${logTail}`,
      {
        retriable: true,
      },
    );
    this.logTail = logTail;
  }
}

/** A Hadoop client program (KeyShell, the client driver) failed in a way that is not an answer. */
export class HadoopClientError extends FastpathError {
  readonly output: string;
  constructor(message: string, output: string) {
    super('ERR_HADOOP_CLIENT', `${message}; its output:\n${output}`);
    this.output = output;
  }
}

/**
 * Hadoop's IPC server (the RPC peer driver) exited before it served, did not write its port within
 * the start bound, or did not exit after SIGKILL; `logTail` holds the end of its log.
 */
export class HadoopRpcPeerError extends FastpathError {
  readonly logTail: string;
  constructor(message: string, logTail: string) {
    super('ERR_HADOOP_RPC_PEER', `${message}; end of its log:\n${logTail}`);
    this.logTail = logTail;
  }
}
