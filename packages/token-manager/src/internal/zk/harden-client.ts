import type { Client } from 'node-zookeeper-client';

interface ConnectionManagerInternals {
  pendingBuffer: Buffer | null;
  socket?: { destroy(): void };
  onSocketData(buffer: Buffer): void;
  onSocketClosed(hadError: boolean): void;
}

/**
 * Guards a node-zookeeper-client 1.1.3 client against two flaws of its connection manager, which
 * otherwise crash the process when a server dies mid-answer:
 * - a partly received frame survives the loss of its connection and is glued in front of the next
 *   connection's first bytes, so the new stream is misread;
 * - a frame it cannot read throws out of the socket's data handler (an uncaught exception).
 * The leftover is dropped when a connection closes, and a frame that cannot be read ends the
 * connection (the library then reconnects, and pending calls fail with a connection loss).
 * Must run before `client.connect()`: the library binds these handlers when it connects.
 */
export function hardenClient(client: Client): void {
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
