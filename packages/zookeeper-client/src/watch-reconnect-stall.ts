import { checkInteger } from '@fastpath/core';
import type { Client } from 'node-zookeeper-client';
import { checkWorkaround } from './internal/check-workaround.js';

/**
 * Calls `onStalled` when `client` lost its connection and has not got it back within `timeoutMs`.
 * node-zookeeper-client reconnects by itself, but its handshake is unbounded: a server that
 * accepts the connection and never answers (starting, paused) keeps it waiting for ever. Once the
 * session timeout has passed without a reconnection the server has given the session up anyway,
 * so the owner can drop the client and start over. Returns a function that stops watching.
 *
 * @throws ZooKeeperClientVersionError when the installed library is not the one this was written for
 * @example
 * ```ts
 * const stop = watchReconnectStall(client, 10_000, () => replaceClient());
 * ```
 */
export function watchReconnectStall(client: Client, timeoutMs: number, onStalled: () => void): () => void {
  checkWorkaround('reconnect-stall');
  checkInteger('timeoutMs', timeoutMs, 1);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onDisconnected = (): void => {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      onStalled();
    }, timeoutMs);
    timer.unref();
  };
  const onConnected = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  client.on('disconnected', onDisconnected);
  client.on('connected', onConnected);
  return () => {
    onConnected();
    client.removeListener('disconnected', onDisconnected);
    client.removeListener('connected', onConnected);
  };
}
