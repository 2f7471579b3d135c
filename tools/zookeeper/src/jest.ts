// @fastpath/zookeeper-fixture/jest: the fixture as a suite's setup, in jest's hooks. A subpath of
// its own so that the front door stays free of test-runner globals (benchmarks use it too).
export {
  DEFAULT_USE_ZOOKEEPER_OPTIONS,
  useZooKeeper,
  type TestZooKeeper,
  type TestZooKeeperClient,
  type UseZooKeeperOptions,
} from './use-zookeeper.js';
