// @fastpath/zookeeper-fixture: the one front door. Everything public is re-exported here by name.
export { startZooKeeper } from './start-zookeeper.js';
export type {
  LeaderOptions,
  RestartOptions,
  ZooKeeperFixture,
  ZooKeeperNodeInfo,
  ZooKeeperNodeState,
} from './zookeeper-fixture.js';
export {
  DEFAULT_ZOOKEEPER_FIXTURE_OPTIONS,
  type ZooKeeperFixtureOptions,
} from './zookeeper-fixture-options.js';
export {
  DEFAULT_ZOOKEEPER_INSTALLATION_OPTIONS,
  locateZooKeeper,
  type ZooKeeperInstallation,
  type ZooKeeperInstallationOptions,
} from './locate-zookeeper.js';
export {
  DEFAULT_FOUR_LETTER_WORD_OPTIONS,
  fourLetterWord,
  parseMntr,
  parseMode,
  type FourLetterWordOptions,
  type ZooKeeperMode,
} from './four-letter-word.js';
export {
  closeZooKeeperClient,
  connectZooKeeper,
  DEFAULT_CONNECT_ZOOKEEPER_OPTIONS,
  type CloseZooKeeperClientOptions,
  type ConnectZooKeeperOptions,
} from './connect-zookeeper.js';
export {
  zkCreate,
  zkExists,
  zkGetChildren,
  zkGetData,
  zkMkdirp,
  zkRemove,
  zkSetData,
} from './zookeeper-promises.js';
export { deleteRecursive } from './delete-recursive.js';
export {
  FourLetterWordError,
  JavaNotFoundError,
  ZooKeeperConnectTimeoutError,
  ZooKeeperExitedError,
  ZooKeeperFixtureStateError,
  ZooKeeperNotFoundError,
  ZooKeeperOperationError,
  ZooKeeperWaitTimeoutError,
} from './zookeeper-errors.js';
