import type { EventEmitter } from 'node:events';
import { InvalidOptionError, Redacted, checkInteger, checkNonEmptyString } from '@fastpath/core';
import zookeeper from 'node-zookeeper-client';
import type { Client } from 'node-zookeeper-client';
import { checkWorkaround } from './internal/check-workaround.js';
import { CONNECTION_CLOSED_STATE, connectionManagerOf } from './internal/connection-manager.js';
import { guardClientSocket } from './internal/guard-client-socket.js';
import {
  installSaslAuthentication,
  SASL_AUTHENTICATED_EVENT,
  SASL_FAILED_EVENT,
} from './internal/sasl-authentication.js';
import { ZooKeeperConnectTimeoutError, ZooKeeperSaslError } from './zookeeper-client-errors.js';
import { resolveZooKeeperSaslOptions, type ZooKeeperSaslOptions } from './zookeeper-sasl.js';

/** Credentials sent on every connection (`addAuthInfo`), e.g. `digest` with `user:password`. */
export interface ZooKeeperAuthInfo {
  /** The ZooKeeper auth scheme, as the server's authentication providers name it, e.g. `digest`. */
  scheme: string;
  /** The scheme's credentials as bytes (for `digest`, UTF-8 `user:password`), boxed so they never print. */
  auth: Redacted<Buffer>;
}

/** Options of {@link connectZooKeeper}. */
export interface ConnectZooKeeperOptions {
  /** Bound for one connection attempt, in milliseconds. Default 5000. */
  timeoutMs?: number;
  /** Further attempts after the first times out. Default 3. */
  retries?: number;
  /** Session timeout the client asks for, in milliseconds (the server clamps it). Default 30000. */
  sessionTimeoutMs?: number;
  /** Upper bound of the random pause before the client walks the server list again, in milliseconds. Default 100. */
  spinDelayMs?: number;
  /** node-zookeeper-client's `retries`: how often an operation is retried after a connection loss. Default 0. */
  operationRetries?: number;
  /** Credentials added before connecting, so the session is authenticated from its start. Default: none. */
  authInfo?: readonly ZooKeeperAuthInfo[];
  /**
   * Authenticate every connection with SASL (e.g. Kerberos) before any request is sent; the
   * client resolves once the first connection is authenticated. Default: none.
   */
  sasl?: ZooKeeperSaslOptions;
}

/** Defaults of {@link ConnectZooKeeperOptions}. */
export const DEFAULT_CONNECT_ZOOKEEPER_OPTIONS = Object.freeze({
  /** 5000 ms per connection attempt. */
  timeoutMs: 5000,
  /** 3 further attempts, so 4 in all, about 20 s before {@link ZooKeeperConnectTimeoutError}. */
  retries: 3,
  /** 30 000 ms asked for; the server clamps it to its `minSessionTimeout`..`maxSessionTimeout`. */
  sessionTimeoutMs: 30_000,
  /** At most 100 ms of random pause before walking the server list again. */
  spinDelayMs: 100,
  /** 0: an operation that meets a connection loss fails at once with `CONNECTION_LOSS`. */
  operationRetries: 0,
});

/** Options of {@link closeZooKeeperClient}. */
export interface CloseZooKeeperClientOptions {
  /** Bound for the server to confirm the end of the session before the socket is destroyed, in milliseconds. Default 2000. */
  timeoutMs?: number;
}

/**
 * Creates a node-zookeeper-client `Client` and resolves once it is connected. Each attempt is
 * bounded by `timeoutMs`: the library can wait forever when it connects while a server is still
 * starting, so a stuck attempt is closed and a fresh client tries again, up to `retries` times.
 * The client is guarded against frames the library cannot read and against half-read frames
 * surviving a reconnection (both otherwise hang it or crash the process).
 *
 * @throws ZooKeeperConnectTimeoutError when no attempt connected
 * @throws ZooKeeperSaslError when `sasl` is set and the exchange failed (the client is closed)
 * @throws ZooKeeperClientVersionError when the installed library is not the one the workarounds were written for
 * @example
 * ```ts
 * const client = await connectZooKeeper(zk.connectString, { sessionTimeoutMs: 10_000 });
 * try {
 *   await zkCreate(client, '/app', 'config');
 * } finally {
 *   await closeZooKeeperClient(client);
 * }
 * ```
 */
export async function connectZooKeeper(
  connectString: string,
  options: ConnectZooKeeperOptions = {},
): Promise<Client> {
  const d = DEFAULT_CONNECT_ZOOKEEPER_OPTIONS;
  checkNonEmptyString('connectString', connectString);
  const timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? d.timeoutMs, 1);
  const retries = checkInteger('retries', options.retries ?? d.retries, 0, 1000);
  const sessionTimeoutMs = checkInteger(
    'sessionTimeoutMs',
    options.sessionTimeoutMs ?? d.sessionTimeoutMs,
    1,
  );
  const spinDelayMs = checkInteger('spinDelayMs', options.spinDelayMs ?? d.spinDelayMs, 0);
  const operationRetries = checkInteger(
    'operationRetries',
    options.operationRetries ?? d.operationRetries,
    0,
    1000,
  );
  const authInfo = checkAuthInfo(options.authInfo ?? []);
  const sasl = options.sasl === undefined ? undefined : resolveZooKeeperSaslOptions(options.sasl);
  checkWorkaround('bounded-connect');
  for (let attempt = 0; attempt <= retries; attempt++) {
    const client = zookeeper.createClient(connectString, {
      sessionTimeout: sessionTimeoutMs,
      spinDelay: spinDelayMs,
      retries: operationRetries,
    });
    guardClientSocket(client);
    if (sasl !== undefined) installSaslAuthentication(client, sasl);
    for (const { scheme, auth } of authInfo) client.addAuthInfo(scheme, auth.unwrap());
    // The library's typings know only its own events; the SASL events carry an argument.
    const events = client as unknown as EventEmitter;
    const outcome = await new Promise<boolean | ZooKeeperSaslError>((resolve) => {
      const finish = (result: boolean | ZooKeeperSaslError): void => {
        clearTimeout(timer);
        client.removeListener('connected', onConnected);
        client.removeListener('expired', onFailed);
        client.removeListener('authenticationFailed', onFailed);
        client.removeListener(SASL_AUTHENTICATED_EVENT, onAuthenticated);
        events.removeListener(SASL_FAILED_EVENT, onSaslFailed);
        resolve(result);
      };
      const onAuthenticated = (): void => finish(true);
      const onSaslFailed = (error: ZooKeeperSaslError): void => finish(error);
      const onConnected = (): void => {
        if (sasl === undefined) {
          finish(true);
          return;
        }
        // Connected: the exchange (bounded by itself) decides. The bound here only covers a
        // connection lost during it, each new one starting an exchange again.
        clearTimeout(timer);
        timer = setTimeout(() => {
          finish(
            new ZooKeeperSaslError(
              connectString,
              'timeout',
              `no authenticated connection within ${sasl.timeoutMs + timeoutMs} ms of the first`,
            ),
          );
        }, sasl.timeoutMs + timeoutMs);
      };
      const onFailed = (): void => finish(false);
      let timer = setTimeout(onFailed, timeoutMs);
      client.once('connected', onConnected);
      client.once('expired', onFailed);
      client.once('authenticationFailed', onFailed);
      client.once(SASL_AUTHENTICATED_EVENT, onAuthenticated);
      events.once(SASL_FAILED_EVENT, onSaslFailed);
      client.connect();
    });
    if (outcome === true) return client;
    // No session was established, so there is nothing to end politely: drop the socket quickly.
    await closeZooKeeperClient(client, { timeoutMs: 100 });
    // Another attempt does not mend credentials the server or the KDC refused.
    if (outcome instanceof ZooKeeperSaslError) throw outcome;
  }
  throw new ZooKeeperConnectTimeoutError(connectString, retries + 1, timeoutMs);
}

/**
 * Closes a client and waits (bounded) until its socket is gone, so no handle keeps the process
 * alive: `client.close()` alone leaves the socket open when the server does not answer (paused,
 * starting, or gone). A client already closed (or closing) is fine.
 *
 * @throws ZooKeeperClientVersionError when the installed library is not the one this was written for
 * @example
 * ```ts
 * await closeZooKeeperClient(client);
 * ```
 */
export async function closeZooKeeperClient(
  client: Client,
  options: CloseZooKeeperClientOptions = {},
): Promise<void> {
  const timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? 2000, 0);
  checkWorkaround('close-socket');
  const manager = connectionManagerOf(client);
  if (manager.state === CONNECTION_CLOSED_STATE) return;
  try {
    client.close();
  } catch {
    // the library refuses to close a client twice; the wait below still applies
  }
  await new Promise<void>((resolve) => {
    const finish = (): void => {
      clearTimeout(timer);
      manager.removeListener('state', onState);
      resolve();
    };
    const onState = (state: number): void => {
      if (state === CONNECTION_CLOSED_STATE) finish();
    };
    const timer = setTimeout(() => {
      // Destroying the socket in the closing state ends the session without a reconnect.
      manager.socket?.destroy();
      finish();
    }, timeoutMs);
    manager.on('state', onState);
    if (manager.state === CONNECTION_CLOSED_STATE) finish();
  });
}

function checkAuthInfo(value: unknown): ZooKeeperAuthInfo[] {
  if (!Array.isArray(value))
    throw new InvalidOptionError('authInfo', 'expected an array of { scheme, auth }');
  return value.map((entry: unknown, i) => {
    const { scheme, auth } = (entry ?? {}) as Partial<ZooKeeperAuthInfo>;
    checkNonEmptyString(`authInfo[${i}].scheme`, scheme);
    if (!(auth instanceof Redacted) || !Buffer.isBuffer(auth.unwrap())) {
      throw new InvalidOptionError(`authInfo[${i}].auth`, 'expected a Redacted<Buffer>');
    }
    return { scheme: scheme as string, auth };
  });
}
