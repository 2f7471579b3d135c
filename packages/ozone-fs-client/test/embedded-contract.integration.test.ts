// The shared suites against the embedded mini cluster (plaintext): the client contract and the
// file system's reads. tools/ozone runs the same two against Apache Ozone's MiniOzoneCluster.
import { afterAll, beforeAll, describe } from '@jest/globals';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import {
  describeFileSystemReads,
  describeOzoneContract,
  MINI_CLUSTER_CAPABILITIES,
  miniClusterAdapter,
} from '@fastpath/ozone-fs-client/testing/contract';

describe('embedded mini cluster', () => {
  let cluster: MiniOzoneCluster;
  beforeAll(async () => {
    cluster = await startMiniOzoneCluster({ datanodes: 3 });
  });
  afterAll(async () => {
    await cluster?.close();
  });
  describe('Ozone client contract', () => {
    describeOzoneContract(() => miniClusterAdapter(cluster), MINI_CLUSTER_CAPABILITIES);
  });
  describe('file-system reads', () => {
    describeFileSystemReads(() => miniClusterAdapter(cluster), MINI_CLUSTER_CAPABILITIES);
  });
});
