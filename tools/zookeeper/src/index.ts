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
  type ZooKeeperKerberosOptions,
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
// The client side (a bounded connect and close, promise forms of the common calls, a recursive
// delete) comes from @fastpath/zookeeper-client, which owns every workaround for the client
// library; it is re-exported so that a test needs one import to start a server and talk to it.
export {
  closeZooKeeperClient,
  connectZooKeeper,
  DEFAULT_CONNECT_ZOOKEEPER_OPTIONS,
  deleteRecursive,
  zkCreate,
  zkExists,
  zkGetAcl,
  zkGetChildren,
  zkGetData,
  zkMkdirp,
  zkRemove,
  zkSetData,
  ZooKeeperConnectTimeoutError,
  ZooKeeperOperationError,
  ZooKeeperSaslError,
  type CloseZooKeeperClientOptions,
  type ConnectZooKeeperOptions,
} from '@fastpath/zookeeper-client';
// Thrown by locateZooKeeper/startZooKeeper when there is no java; defined with the JVM helpers.
export { JavaNotFoundError } from '@fastpath/jvm-fixture';
export {
  DEFAULT_DELAY_PROXY_OPTIONS,
  startDelayProxy,
  type DelayProxy,
  type DelayProxyOptions,
  type DelayProxyStats,
} from './delay-proxy.js';
export {
  DEFAULT_DELAY_PROXY_PROCESS_OPTIONS,
  startDelayProxyProcess,
  type DelayProxyProcess,
  type DelayProxyProcessOptions,
} from './start-delay-proxy-process.js';
export {
  DelayProxyExitedError,
  FourLetterWordError,
  ZooKeeperExitedError,
  ZooKeeperFixtureStateError,
  ZooKeeperNotFoundError,
  ZooKeeperWaitTimeoutError,
} from './zookeeper-errors.js';
