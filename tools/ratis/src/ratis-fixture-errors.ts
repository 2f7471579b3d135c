import { FastpathError } from '@fastpath/core';

/**
 * A JVM of the fixture (a peer, or the Java client) exited, or reported a failure, while the
 * fixture waited for it (its start, a command). `logTail` holds the end of its log.
 */
export class RatisJvmExitedError extends FastpathError {
  /** The peer's id, or `Java client`. */
  readonly jvm: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly logTail: string;
  constructor(name: string, what: string, exitCode: number | null, signal: string | null, logTail: string) {
    super('ERR_RATIS_JVM_EXITED', `${name} ${what}; end of its log:\n${logTail}`);
    this.jvm = name;
    this.exitCode = exitCode;
    this.signal = signal;
    this.logTail = logTail;
  }
}

/**
 * A bounded wait ran out: peers not serving, no leader elected, a leadership transfer not done.
 * Retriable: a loaded machine may need a larger bound.
 */
export class RatisFixtureTimeoutError extends FastpathError {
  readonly waitedFor: string;
  readonly timeoutMs: number;
  constructor(waitedFor: string, timeoutMs: number, detail = '') {
    super(
      'ERR_RATIS_FIXTURE_TIMEOUT',
      `timed out after ${timeoutMs} ms waiting for ${waitedFor}${detail === '' ? '' : `: ${detail}`}`,
      { retriable: true },
    );
    this.waitedFor = waitedFor;
    this.timeoutMs = timeoutMs;
  }
}

/** A call the group's state does not allow: any call after `stop()`, pausing a stopped peer, … */
export class RatisFixtureStateError extends FastpathError {
  constructor(message: string) {
    super('ERR_RATIS_FIXTURE_STATE', message);
  }
}

/** Ratis refused a command of the fixture (a leadership transfer); the message is its exception chain. */
export class RatisPeerCommandError extends FastpathError {
  readonly command: string;
  constructor(command: string, message: string) {
    super('ERR_RATIS_PEER_COMMAND', `${command} failed: ${message}`);
    this.command = command;
  }
}
