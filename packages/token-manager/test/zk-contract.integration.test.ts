import { describeSecretManagerContract } from './support/secret-manager-contract.js';
import { useZooKeeper } from '@fastpath/zookeeper-fixture/jest';
import { ManagerPool, TOKEN_MANAGER_ZOOKEEPER } from './support/zookeeper.js';

// The same contract as the in-memory manager, against managers sharing one real ZooKeeper tree.
const zk = useZooKeeper(TOKEN_MANAGER_ZOOKEEPER);

for (const persistCoalescing of [true, false]) {
  describeSecretManagerContract(
    `ZooKeeper (persistCoalescing: ${persistCoalescing})`,
    () => {
      const pool = new ManagerPool(zk);
      return {
        create: (options = {}) => pool.make({ persistCoalescing, ...options }),
        close: async () => {
          await pool.close();
          expect(pool.warnings).toEqual([]);
        },
      };
    },
    { shared: true, concurrency: { clients: 20, perClient: 50 } },
  );
}
