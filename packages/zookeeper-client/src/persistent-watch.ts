import type { Client } from 'node-zookeeper-client';
import { checkWorkaround } from './internal/check-workaround.js';
import { connectionManagerOf } from './internal/connection-manager.js';

// ZooKeeper 3.6+ persistent recursive watches (the `addWatch` request), which node-zookeeper-client
// 1.1.3 does not offer. One such watch reports every create, change and delete below a path
// without being set again, where the one-shot child watches the library has would make each
// change cost a listing of every child (quadratic in their number). Hadoop's manager gets the
// same from Curator's CuratorCache.
//
// The request is put on the library's own queue, so it is numbered, sent and answered in order
// with everything else. It travels as operation 106 but is filed as a SET_WATCHES request, whose
// answer the library knows to carry no payload (addWatch answers with an empty error response).
// Notifications arrive as ordinary watch events, which the library drops when no one-shot watch
// matches: they are taken from its watcher manager before that.

const OP_ADD_WATCH = 106;
const OP_SET_WATCHES = 101;
const ADD_WATCH_MODE_PERSISTENT_RECURSIVE = 1;

/** A znode under the watched path (or the path itself) was created (ZooKeeper's `NodeCreated`). */
export const ZK_EVENT_NODE_CREATED = 1;
/** A znode under the watched path (or the path itself) was deleted (ZooKeeper's `NodeDeleted`). */
export const ZK_EVENT_NODE_DELETED = 2;
/**
 * A znode under the watched path (or the path itself) had its data set (ZooKeeper's
 * `NodeDataChanged`), even to the same bytes.
 */
export const ZK_EVENT_NODE_DATA_CHANGED = 3;

/** Receives one event: `type` is a `ZK_EVENT_*`, `path` the znode it happened to. */
export type PersistentWatchListener = (type: number, path: string) => void;

interface WatcherEventRecord {
  type: number;
  path: string;
}

const listenersByClient = new WeakMap<Client, Map<string, PersistentWatchListener>>();

/**
 * Sets a persistent recursive watch on `path` and sends each event for `path` or a node below it
 * to `listener`. Calls back when ZooKeeper confirmed the watch. Setting it again on the same
 * client replaces the listener (ZooKeeper keeps one watch per path). The watch lasts as long as
 * the connection: set it again after a reconnection.
 *
 * @throws ZooKeeperClientVersionError when the installed library is not the one this was written for
 * @example
 * ```ts
 * addPersistentRecursiveWatch(client, '/app', (type, path) => {
 *   if (type === ZK_EVENT_NODE_CREATED) console.log('created', path);
 * }, (error) => { if (error) throw error; });
 * ```
 */
export function addPersistentRecursiveWatch(
  client: Client,
  path: string,
  listener: PersistentWatchListener,
  callback: (error: unknown) => void,
): void {
  checkWorkaround('persistent-watch');
  const manager = connectionManagerOf(client);
  let listeners = listenersByClient.get(client);
  if (!listeners) {
    const registered = new Map<string, PersistentWatchListener>();
    listeners = registered;
    listenersByClient.set(client, registered);
    const watchers = manager.watcherManager;
    const original = watchers.emit.bind(watchers);
    watchers.emit = (event: WatcherEventRecord): void => {
      for (const [root, fn] of registered) {
        if (event.path === root || event.path.startsWith(`${root}/`)) fn(event.type, event.path);
      }
      try {
        original(event);
      } catch {
        // an event type the library does not know (only persistent watches produce them)
      }
    };
  }
  listeners.set(path, listener);
  const pathBytes = Buffer.from(path, 'utf8');
  const request = {
    header: { type: OP_SET_WATCHES, xid: 0 },
    payload: null,
    toBuffer(): Buffer {
      // length, then RequestHeader { xid, type } and AddWatchRequest { path, mode }
      const body = 4 + 4 + 4 + pathBytes.length + 4;
      const buffer = Buffer.alloc(4 + body);
      let offset = buffer.writeInt32BE(body, 0);
      offset = buffer.writeInt32BE(this.header.xid, offset);
      offset = buffer.writeInt32BE(OP_ADD_WATCH, offset);
      offset = buffer.writeInt32BE(pathBytes.length, offset);
      offset += pathBytes.copy(buffer, offset);
      buffer.writeInt32BE(ADD_WATCH_MODE_PERSISTENT_RECURSIVE, offset);
      return buffer;
    },
  };
  manager.queue(request, callback);
}
