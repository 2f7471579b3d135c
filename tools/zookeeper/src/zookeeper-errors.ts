import { FastpathError } from '@fastpath/core';

/**
 * No ZooKeeper installation could be found (and none could be installed). The message says what
 * to install or which setting to fix.
 *
 * @example
 * ```ts
 * try {
 *   await startZooKeeper({ installIfMissing: false });
 * } catch (err) {
 *   if (err instanceof ZooKeeperNotFoundError) console.error(err.message); // says what to install
 * }
 * ```
 */
export class ZooKeeperNotFoundError extends FastpathError {
  constructor(message: string, cause?: unknown) {
    super('ERR_ZOOKEEPER_NOT_FOUND', message, cause === undefined ? {} : { cause });
  }
}

/** A ZooKeeper server process exited while the fixture was waiting for it to serve. */
export class ZooKeeperExitedError extends FastpathError {
  /** 0-based index of the node in the fixture. */
  readonly node: number;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The last lines of the server's log. */
  readonly logTail: string;
  constructor(node: number, exitCode: number | null, signal: string | null, logTail: string) {
    super(
      'ERR_ZOOKEEPER_EXITED',
      `ZooKeeper node ${node} exited (${signal === null ? `code ${String(exitCode)}` : `signal ${signal}`}) ` +
        `before it served; end of its log:\n${logTail}`,
    );
    this.node = node;
    this.exitCode = exitCode;
    this.signal = signal;
    this.logTail = logTail;
  }
}

/**
 * A bounded wait of the fixture ran out: a server did not report a `Mode:` in time, no leader was
 * elected, or a process did not exit. Retriable: a slower machine may need a larger bound.
 */
export class ZooKeeperWaitTimeoutError extends FastpathError {
  /** What was awaited, e.g. `node 1 to report a Mode`. */
  readonly waitedFor: string;
  readonly timeoutMs: number;
  /** The last lines of the relevant server log(s), or an empty string. */
  readonly logTail: string;
  constructor(waitedFor: string, timeoutMs: number, logTail = '') {
    super(
      'ERR_ZOOKEEPER_WAIT_TIMEOUT',
      `timed out after ${timeoutMs} ms waiting for ${waitedFor}` +
        (logTail === '' ? '' : `; end of the server log:\n${logTail}`),
      { retriable: true },
    );
    this.waitedFor = waitedFor;
    this.timeoutMs = timeoutMs;
    this.logTail = logTail;
  }
}

/**
 * A four-letter-word command (`srvr`, `mntr`, ...) got no answer in time, could not connect, or
 * was refused because it is not whitelisted. Retriable: the server may be starting or paused.
 */
export class FourLetterWordError extends FastpathError {
  readonly word: string;
  readonly port: number;
  constructor(word: string, port: number, message: string, cause?: unknown) {
    super('ERR_ZOOKEEPER_FOUR_LETTER', `four-letter word "${word}" on port ${port}: ${message}`, {
      retriable: true,
      ...(cause === undefined ? {} : { cause }),
    });
    this.word = word;
    this.port = port;
  }
}

/**
 * The fixture was used in a way its current state does not allow: a node index out of range, a
 * call after `close()`, pausing a stopped node.
 */
export class ZooKeeperFixtureStateError extends FastpathError {
  constructor(message: string) {
    super('ERR_ZOOKEEPER_FIXTURE_STATE', message);
  }
}

/** The delay proxy's process exited before it listened, or before it answered. */
export class DelayProxyExitedError extends FastpathError {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The last lines of the process's log, when it had one. */
  readonly logTail: string;
  constructor(exitCode: number | null, signal: string | null, logTail: string) {
    super(
      'ERR_ZOOKEEPER_DELAY_PROXY_EXITED',
      `the delay proxy process exited (${signal === null ? `code ${String(exitCode)}` : `signal ${signal}`})` +
        (logTail === '' ? '' : `; end of its log:\n${logTail}`),
    );
    this.exitCode = exitCode;
    this.signal = signal;
    this.logTail = logTail;
  }
}
