/**
 * `@fastpath/token-manager/zookeeper`: the ZooKeeper-backed secret managers (optional surface: it
 * is the only part of the package that loads node-zookeeper-client).
 *
 * @module @fastpath/token-manager/zookeeper
 */
export { ZkDelegationTokenSecretManager } from './zk-delegation-token-secret-manager.js';
export {
  DEFAULT_ZK_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS,
  ZK_DTSM_KEY_ID_ROOT,
  ZK_DTSM_MASTER_KEY_ROOT,
  ZK_DTSM_ROOT,
  ZK_DTSM_SEQ_NUM_ROOT,
  ZK_DTSM_TOKENS_ROOT,
  zkDtsmPaths,
  type ZkAuthType,
  type ZkDelegationTokenSecretManagerOptions,
  type ZkDtsmPaths,
} from './zk-delegation-token-secret-manager-options.js';
export {
  DEFAULT_ROUTER_ZK_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS,
  RouterZkDelegationTokenSecretManager,
  type RouterZkDelegationTokenSecretManagerOptions,
} from './router-zk-delegation-token-secret-manager.js';
