import { createHash } from 'node:crypto';
import zookeeper from 'node-zookeeper-client';
import { ZooKeeperClientVersionError } from '../zookeeper-client-errors.js';
import { connectionManagerOf } from './connection-manager.js';

/** The node-zookeeper-client version every workaround of this package was written for. */
export const NODE_ZOOKEEPER_CLIENT_VERSION = '1.1.3';

/** The workarounds of this package, by name. */
export type Workaround =
  | 'socket-guard'
  | 'persistent-watch'
  | 'close-socket'
  | 'bounded-connect'
  | 'reconnect-stall'
  | 'delete-recursive'
  | 'sasl';

// What each workaround relies on, as SHA-256 of the library functions' source text in 1.1.3.
// The library has no version export, and its package.json is not reachable from both module
// systems this package runs in; the source of the very functions a workaround depends on is a
// stricter check anyway: a release that leaves them unchanged keeps the workaround valid, and
// any change to them (a fix or a new bug) stops it before it patches anything.
const RELIES_ON: Readonly<Record<Workaround, Readonly<Record<string, string>>>> = {
  // The guard wraps the data and close handlers, which `connect` binds to each new socket.
  'socket-guard': {
    'ConnectionManager#connect': '5b32c8f11784cec753bb16e6bd9d04d95bfc868b43cae6099d0be7bd1b695928',
    'ConnectionManager#onSocketData': '2887ec95adebb2add77c0569fd8acb44acf8cae679474bb0748c18b1c3d8c4df',
    'ConnectionManager#onSocketClosed': '3c951f31fc07ac631c72b8a43d52863e5c45cc28b18b5ea60ef23042625b51cd',
  },
  // The addWatch request goes through `queue`, is numbered by `onPacketQueueReadable`, is
  // answered as a SET_WATCHES (no payload) by `onSocketData`; events are taken from `emit`.
  'persistent-watch': {
    'ConnectionManager#queue': '2d10a9d899146031f17b685b4948466d9bc77e31227df337db916bb485a7fd0b',
    'ConnectionManager#onPacketQueueReadable':
      'f897ef043afeabb6662f7e94ac0b2616029d57c3a7750f33c79e9c6b7a831428',
    'ConnectionManager#onSocketData': '2887ec95adebb2add77c0569fd8acb44acf8cae679474bb0748c18b1c3d8c4df',
    'WatcherManager#emit': '5145d6538fcf1154793e6bd8b2346d5bd4640a6efd8aa98600d039da56fe4257',
  },
  // `close` only queues CLOSE_SESSION and no timer runs in the closing state, so a server that
  // does not answer leaves the socket open; the workaround destroys it.
  'close-socket': {
    'ConnectionManager#close': 'de35c70c73a6caef0f427cf00d550c4a4b812cf6b42d458675dced45aa6f9045',
    'ConnectionManager#onSocketTimeout': '5201811f8c0d9b2828e8c4f91478a68c357871b17039545fb5b4d992dc5fc163',
    'ConnectionManager#onSocketClosed': '3c951f31fc07ac631c72b8a43d52863e5c45cc28b18b5ea60ef23042625b51cd',
  },
  // The connect timer of `connect` ends once TCP connects; a server that then never answers the
  // handshake leaves `Client#connect` waiting for ever.
  'bounded-connect': {
    'Client#connect': '11d86bee0d5ad6256423bdf9525eba286ef3b1766475e09aebde5aa42be7332a',
    'ConnectionManager#connect': '5b32c8f11784cec753bb16e6bd9d04d95bfc868b43cae6099d0be7bd1b695928',
  },
  // The library's own reconnection (from `onSocketClosed`) has the same unbounded handshake.
  'reconnect-stall': {
    'ConnectionManager#onSocketClosed': '3c951f31fc07ac631c72b8a43d52863e5c45cc28b18b5ea60ef23042625b51cd',
    'ConnectionManager#connect': '5b32c8f11784cec753bb16e6bd9d04d95bfc868b43cae6099d0be7bd1b695928',
  },
  // SASL gates the queue (the constructor binds `onPacketQueueReadable` to it; `onSocketData` and
  // `onSocketDrain` call it on the instance), numbers its requests as `onPacketQueueReadable`
  // does, takes the answers before `onSocketData` (which `connect` binds to each socket), learns the
  // server from `findNextServer`, follows `setState`, and fails what `queue` holds as `onSocketClosed`
  // fails what was sent.
  sasl: {
    'ConnectionManager#constructor': '5d6a44db01d4d55c99eec3850ddbdf44af3ea664eddb8a7b260c79a25c0bf79f',
    'ConnectionManager#connect': '5b32c8f11784cec753bb16e6bd9d04d95bfc868b43cae6099d0be7bd1b695928',
    'ConnectionManager#findNextServer': 'cee5cb224dbbf6cd1f7d3a47130b085c3266fc84af3f3e53f9815e187253479b',
    'ConnectionManager#setState': '1d422e444054033b5daba176c12d1476edc5d4df693fa3ff3303dafa5b39290c',
    'ConnectionManager#queue': '2d10a9d899146031f17b685b4948466d9bc77e31227df337db916bb485a7fd0b',
    'ConnectionManager#onPacketQueueReadable':
      'f897ef043afeabb6662f7e94ac0b2616029d57c3a7750f33c79e9c6b7a831428',
    'ConnectionManager#onSocketData': '2887ec95adebb2add77c0569fd8acb44acf8cae679474bb0748c18b1c3d8c4df',
    'ConnectionManager#onSocketDrain': '7b4e7bbe4a84c849c8b28b4cf9fa47b86cec5b78661301e8d9ab7954188bf76b',
    'ConnectionManager#onSocketClosed': '3c951f31fc07ac631c72b8a43d52863e5c45cc28b18b5ea60ef23042625b51cd',
  },
  // `removeRecursive` walks only one level below the path; `deleteRecursive` replaces it.
  'delete-recursive': {
    'Client#removeRecursive': '43441fa897f742ce7cd7e4997142d502f3684f57bc90ff410f41b00ce1ad1081',
  },
};

/** The workarounds and the library functions each relies on (for tests and docs). */
export const WORKAROUND_DEPENDENCIES: Readonly<Record<Workaround, readonly string[]>> = Object.freeze(
  Object.fromEntries(
    Object.entries(RELIES_ON).map(([name, fns]) => [name, Object.keys(fns)]),
  ) as unknown as Record<Workaround, readonly string[]>,
);

/** Source text of the library functions the workarounds rely on, by `Class#method`. */
export type LibrarySources = Readonly<Record<string, string | undefined>>;

let installed: LibrarySources | undefined;
const passed = new Set<Workaround>();

/** Reads the source text of the installed library's functions (once per process). */
export function installedLibrarySources(): LibrarySources {
  if (installed) return installed;
  // A client that never connects opens nothing: it only exposes the prototypes.
  const client = zookeeper.createClient('127.0.0.1:1');
  const manager = connectionManagerOf(client) as unknown as { watcherManager?: object } | undefined;
  const prototypes: Record<string, object | undefined> = {
    Client: Object.getPrototypeOf(client) as object,
    ConnectionManager: manager === undefined ? undefined : (Object.getPrototypeOf(manager) as object),
    WatcherManager:
      manager?.watcherManager === undefined
        ? undefined
        : (Object.getPrototypeOf(manager.watcherManager) as object),
  };
  const sources: Record<string, string | undefined> = {};
  for (const fns of Object.values(RELIES_ON)) {
    for (const name of Object.keys(fns)) {
      const [cls, method] = name.split('#') as [string, string];
      const fn = (prototypes[cls] as Record<string, unknown> | undefined)?.[method];
      sources[name] = typeof fn === 'function' ? String(fn) : undefined;
    }
  }
  installed = sources;
  return sources;
}

/**
 * Throws `ZooKeeperClientVersionError` unless every library function `workaround` relies on is
 * the one of node-zookeeper-client 1.1.3. Called by each workaround before it does anything.
 */
export function checkWorkaround(workaround: Workaround, sources?: LibrarySources): void {
  if (sources === undefined && passed.has(workaround)) return;
  const actual = sources ?? installedLibrarySources();
  const changed = Object.entries(RELIES_ON[workaround])
    .filter(([name, sha256]) => {
      const text = actual[name];
      return text === undefined || createHash('sha256').update(text).digest('hex') !== sha256;
    })
    .map(([name]) => name);
  if (changed.length > 0)
    throw new ZooKeeperClientVersionError(workaround, NODE_ZOOKEEPER_CLIENT_VERSION, changed);
  if (sources === undefined) passed.add(workaround);
}
