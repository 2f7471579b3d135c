import type { Client } from 'node-zookeeper-client';
import { checkWorkaround } from './check-workaround.js';
import { connectionManagerOf, type ConnectionManagerInternals } from './connection-manager.js';

/**
 * Guards a client against two flaws of node-zookeeper-client 1.1.3's connection manager, either
 * of which otherwise hangs the client or crashes the process when a server dies mid-answer or
 * sends a frame the library cannot read (seen while a server starts or restarts):
 * - a partly received frame survives the loss of its connection and is glued in front of the
 *   next connection's first bytes, so the handshake answer is misread and the client waits for
 *   ever;
 * - a frame it cannot parse throws out of the socket's data handler (an uncaught exception).
 * The leftover is dropped when a connection closes, and a frame that cannot be read ends the
 * connection (the library then reconnects, and pending calls fail with a connection loss).
 * Must run before `client.connect()`: the library binds these handlers when it connects.
 *
 * @throws ZooKeeperClientVersionError when the installed library is not the one this was written for
 */
export function guardClientSocket(client: Client): void {
  checkWorkaround('socket-guard');
  const manager = connectionManagerOf(client);
  const onSocketData = manager.onSocketData;
  const onSocketClosed = manager.onSocketClosed;
  manager.onSocketData = function (this: ConnectionManagerInternals, buffer: Buffer): void {
    try {
      onSocketData.call(this, buffer);
    } catch {
      this.pendingBuffer = null;
      this.socket?.destroy();
    }
  };
  manager.onSocketClosed = function (this: ConnectionManagerInternals, hadError: boolean): void {
    this.pendingBuffer = null;
    onSocketClosed.call(this, hadError);
  };
}
