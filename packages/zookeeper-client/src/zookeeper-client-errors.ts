import { FastpathError } from '@fastpath/core';

/** `connectZooKeeper` did not reach the connected state within its attempts. */
export class ZooKeeperConnectTimeoutError extends FastpathError {
  /** The connect string tried, as given (`host:port[,host:port…][/chroot]`). */
  readonly connectString: string;
  /** Attempts made: `retries` + 1. */
  readonly attempts: number;
  /** The bound of each attempt, in ms (the `timeoutMs` option). */
  readonly timeoutMs: number;
  constructor(connectString: string, attempts: number, timeoutMs: number) {
    super(
      'ERR_ZOOKEEPER_CONNECT_TIMEOUT',
      `could not connect to ZooKeeper at ${connectString}: ${attempts} attempt(s) of ${timeoutMs} ms each`,
      { retriable: true },
    );
    this.connectString = connectString;
    this.attempts = attempts;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A ZooKeeper operation made through the promise helpers (`zkCreate`, `zkGetData`, ...) failed.
 * `zkCode` is the numeric ZooKeeper code (compare with `Exception.NO_NODE` etc. from
 * node-zookeeper-client); the library's error is kept as `cause`. Retriable when the connection
 * was lost or the operation timed out.
 *
 * @example
 * ```ts
 * import zookeeper from 'node-zookeeper-client';
 * try {
 *   await zkCreate(client, '/lock');
 * } catch (err) {
 *   if (err instanceof ZooKeeperOperationError && err.zkCode === zookeeper.Exception.NODE_EXISTS) taken();
 *   else throw err;
 * }
 * ```
 */
export class ZooKeeperOperationError extends FastpathError {
  /**
   * The client call that failed: `create`, `mkdirp`, `getData`, `setData`, `exists`, `getChildren`,
   * `getACL` or `remove`.
   */
  readonly operation: string;
  /** The znode path the operation was for, as passed (relative to the client's chroot, if any). */
  readonly path: string;
  /** ZooKeeper's numeric error code, e.g. -101 for NO_NODE. */
  readonly zkCode: number;
  /** ZooKeeper's error name, e.g. `NO_NODE`. */
  readonly zkName: string;
  constructor(operation: string, path: string, zkCode: number, zkName: string, cause: unknown) {
    super('ERR_ZOOKEEPER_OPERATION', `ZooKeeper ${operation} ${path} failed: ${zkName} (${zkCode})`, {
      cause,
      retriable: zkName === 'CONNECTION_LOSS' || zkName === 'OPERATION_TIMEOUT',
    });
    this.operation = operation;
    this.path = path;
    this.zkCode = zkCode;
    this.zkName = zkName;
  }
}

/**
 * The installed node-zookeeper-client is not the version a workaround of this package was written
 * for: the library functions the workaround relies on (or patches) have changed. Nothing was
 * patched. Re-check the workaround against the new library version before using it.
 *
 * @example
 * ```ts
 * try {
 *   await connectZooKeeper('127.0.0.1:2181');
 * } catch (err) {
 *   if (err instanceof ZooKeeperClientVersionError) console.error(err.workaround, err.changed);
 * }
 * ```
 */
export class ZooKeeperClientVersionError extends FastpathError {
  /** Name of the workaround that cannot be applied, e.g. `socket-guard`. */
  readonly workaround: string;
  /** The node-zookeeper-client version it was written for. */
  readonly writtenFor: string;
  /** The library functions that differ from that version, e.g. `ConnectionManager#onSocketData`. */
  readonly changed: readonly string[];
  constructor(workaround: string, writtenFor: string, changed: readonly string[]) {
    super(
      'ERR_ZOOKEEPER_CLIENT_VERSION',
      `the "${workaround}" workaround was written for node-zookeeper-client ${writtenFor}, but the ` +
        `installed library differs in ${changed.join(', ')}: re-check the workaround against the ` +
        `installed version (or install ${writtenFor})`,
    );
    this.workaround = workaround;
    this.writtenFor = writtenFor;
    this.changed = [...changed];
  }
}

/** Why a SASL exchange with ZooKeeper failed. */
export type ZooKeeperSaslFailureReason =
  /** The client's mechanism failed (no ticket, a keytab without the principal, no KDC, an unknown server principal); see `cause`. */
  | 'mechanism'
  /** The server answered a SASL request with an error (`zkCode`), e.g. it did not accept the client's ticket. */
  | 'refused'
  /** The exchange did not end within its bound (`sasl.timeoutMs`). */
  | 'timeout'
  /** The server's answers did not follow the exchange (a token after the end, a mechanism stuck). */
  | 'protocol';

/**
 * Authenticating a connection to ZooKeeper with SASL failed. The connection is closed and the
 * client is in the library's `AUTHENTICATION_FAILED` state: operations waiting for the exchange,
 * and later ones, fail with `AUTH_FAILED`. Retriable only when the exchange timed out.
 *
 * @example
 * ```ts
 * try {
 *   await connectZooKeeper(connectString, { sasl: { mechanism } });
 * } catch (err) {
 *   if (err instanceof ZooKeeperSaslError && err.reason === 'mechanism') console.error('kinit?', err.message);
 * }
 * ```
 */
export class ZooKeeperSaslError extends FastpathError {
  /** The server (`host:port`) the exchange was with. */
  readonly address: string;
  /** What went wrong. */
  readonly reason: ZooKeeperSaslFailureReason;
  /** ZooKeeper's error code for `refused` (e.g. -115 AUTH_FAILED); `undefined` otherwise. */
  readonly zkCode: number | undefined;
  /**
   * The mechanism's own reason for `mechanism`, when its error carries one (e.g. `no-ticket`,
   * `kdc-unreachable` from `@fastpath/hadoop-rpc`'s Kerberos errors); `undefined` otherwise.
   */
  readonly mechanismReason: string | undefined;
  constructor(
    address: string,
    reason: ZooKeeperSaslFailureReason,
    message: string,
    options: { cause?: unknown; zkCode?: number } = {},
  ) {
    super('ERR_ZOOKEEPER_SASL', `SASL authentication to ZooKeeper at ${address} failed: ${message}`, {
      cause: options.cause,
      retriable: reason === 'timeout',
    });
    this.address = address;
    this.reason = reason;
    this.zkCode = options.zkCode;
    const causeReason = (options.cause as { reason?: unknown } | undefined)?.reason;
    this.mechanismReason =
      reason === 'mechanism' && typeof causeReason === 'string' ? causeReason : undefined;
  }
}
