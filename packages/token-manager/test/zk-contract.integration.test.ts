import type { ZooKeeperFixture } from '@fastpath/zookeeper-fixture';
import { describeSecretManagerContract } from './support/secret-manager-contract.js';
import { ManagerPool, startTestZooKeeper } from './support/zookeeper.js';

// The same contract as the in-memory manager, against managers sharing one real ZooKeeper tree.
let zk: ZooKeeperFixture;
beforeAll(async () => {
  zk = await startTestZooKeeper();
});
afterAll(async () => {
  await zk?.close();
});

for (const persistCoalescing of [true, false]) {
  describeSecretManagerContract(
    `ZooKeeper (persistCoalescing: ${persistCoalescing})`,
    () => {
      const pool = new ManagerPool(zk.connectString);
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
