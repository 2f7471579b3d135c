// The client contract suite against the embedded mini cluster (plaintext).
import { afterAll, beforeAll, describe } from '@jest/globals';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import {
  describeOzoneContract,
  MINI_CLUSTER_CAPABILITIES,
  miniClusterAdapter,
} from '@fastpath/ozone-fs-client/testing/contract';

describe('Ozone client contract: embedded mini cluster', () => {
  let cluster: MiniOzoneCluster;
  beforeAll(async () => {
    cluster = await startMiniOzoneCluster({ datanodes: 3 });
  });
  afterAll(async () => {
    await cluster?.close();
  });
  describeOzoneContract(() => miniClusterAdapter(cluster), MINI_CLUSTER_CAPABILITIES);
});
