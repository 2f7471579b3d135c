/**
 * `@fastpath/zookeeper-client`: the one front door. Every workaround fastpath needs for
 * node-zookeeper-client lives in this package, each checked against the library version it was
 * written for before it runs.
 *
 * @module @fastpath/zookeeper-client
 */
export {
  closeZooKeeperClient,
  connectZooKeeper,
  DEFAULT_CONNECT_ZOOKEEPER_OPTIONS,
  type CloseZooKeeperClientOptions,
  type ConnectZooKeeperOptions,
  type ZooKeeperAuthInfo,
} from './connect-zookeeper.js';
export {
  DEFAULT_ZOOKEEPER_SASL_OPTIONS,
  saslOwnerAcl,
  type ZooKeeperSaslMechanism,
  type ZooKeeperSaslOptions,
  type ZooKeeperSaslServer,
  type ZooKeeperSaslSession,
} from './zookeeper-sasl.js';
export {
  addPersistentRecursiveWatch,
  ZK_EVENT_NODE_CREATED,
  ZK_EVENT_NODE_DATA_CHANGED,
  ZK_EVENT_NODE_DELETED,
  type PersistentWatchListener,
} from './persistent-watch.js';
export { watchReconnectStall } from './watch-reconnect-stall.js';
export { deleteRecursive } from './delete-recursive.js';
export {
  zkCreate,
  zkExists,
  zkGetAcl,
  zkGetChildren,
  zkGetData,
  zkMkdirp,
  zkRemove,
  zkSetData,
} from './zookeeper-promises.js';
export {
  ZooKeeperClientVersionError,
  ZooKeeperConnectTimeoutError,
  ZooKeeperOperationError,
  ZooKeeperSaslError,
  type ZooKeeperSaslFailureReason,
} from './zookeeper-client-errors.js';
export { NODE_ZOOKEEPER_CLIENT_VERSION } from './internal/check-workaround.js';
