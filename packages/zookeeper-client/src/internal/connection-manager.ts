import type { Client } from 'node-zookeeper-client';

/**
 * The parts of node-zookeeper-client's connection manager (`client.connectionManager`, absent
 * from the library's type definitions) that the workarounds of this package touch. One view, so
 * that what depends on the library's internals is listed in one place.
 */
export interface ConnectionManagerInternals {
  /** One of the `STATES` below. */
  state: number;
  socket?: { destroy(): void; destroyed?: boolean; write(data: Buffer): boolean };
  /** The next request number; `onPacketQueueReadable` numbers each request it sends with it. */
  xid: number;
  /** Sets `state` and emits `state` when it changed. */
  setState(state: number): void;
  /** Bytes of a frame not complete yet; glued in front of the next bytes read. */
  pendingBuffer: Buffer | null;
  // Socket handlers as properties typed with their `this`: the socket guard takes them off the
  // manager and calls them with `.call(manager, ...)`, which the method form would not allow.
  onSocketData: (this: ConnectionManagerInternals, buffer: Buffer) => void;
  onSocketClosed: (this: ConnectionManagerInternals, hadError: boolean) => void;
  /**
   * Sends what `packetQueue` holds while connected. The constructor binds the prototype's function
   * to the queue's `readable` event; the library's other callers look it up on the instance.
   */
  onPacketQueueReadable: (this: ConnectionManagerInternals) => void;
  /** The requests not sent yet, each with its callback. */
  packetQueue: {
    queue: { callback?: (error: unknown) => void }[];
    on(event: 'readable', listener: () => void): unknown;
    removeAllListeners(event: 'readable'): unknown;
  };
  /** Calls back with the next server of the connect string to try (`connect` calls it). */
  findNextServer: (
    this: ConnectionManagerInternals,
    callback: (server: { host: string; port: number }) => void,
  ) => void;
  /** Queues a request to be numbered, sent and answered in order. */
  queue(request: unknown, callback: (error: unknown) => void): void;
  watcherManager: { emit(event: { type: number; path: string }): void };
  on(event: 'state', listener: (state: number) => void): unknown;
  removeListener(event: 'state', listener: (state: number) => void): unknown;
}

/** The connection manager's `STATES.CLOSED` (lib/ConnectionManager.js). */
export const CONNECTION_CLOSED_STATE = -2;

/** The connection manager's `STATES` (lib/ConnectionManager.js). */
export const CONNECTION_STATES = Object.freeze({
  DISCONNECTED: 0,
  CONNECTING: 1,
  CONNECTED: 2,
  CONNECTED_READ_ONLY: 3,
  CLOSING: -1,
  CLOSED: CONNECTION_CLOSED_STATE,
  SESSION_EXPIRED: -3,
  AUTHENTICATION_FAILED: -4,
});

/** The connection manager of `client`. */
export function connectionManagerOf(client: Client): ConnectionManagerInternals {
  return (client as unknown as { connectionManager: ConnectionManagerInternals }).connectionManager;
}
