import type { Client } from 'node-zookeeper-client';

interface ConnectionManagerInternals {
  pendingBuffer: Buffer | null;
  socket?: { destroy(): void };
  onSocketData(buffer: Buffer): void;
  onSocketClosed(hadError: boolean): void;
}

/**
 * node-zookeeper-client 1.1.3 throws out of its socket data handler when it reads a frame it
 * cannot parse (seen when a client connects to a server that is still starting or restarting),
 * and keeps a half-read frame across reconnections. Either crashes the test process with an
 * uncaught exception. This drops the leftover on close and turns an unreadable frame into a
 * closed connection, which the library already handles by reconnecting. The token manager
 * guards its own clients the same way (its production code cannot depend on this test tool).
 * Must run before `client.connect()`.
 */
export function guardClientSocket(client: Client): void {
  const manager = (client as unknown as { connectionManager?: Partial<ConnectionManagerInternals> })
    .connectionManager;
  if (!manager || typeof manager.onSocketData !== 'function' || typeof manager.onSocketClosed !== 'function')
    return;
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
