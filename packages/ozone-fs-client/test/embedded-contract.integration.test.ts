// The shared suites against the embedded mini cluster (plaintext): the client contract and the
// file system's reads (in both datanode transports). tools/ozone runs the same two against Apache Ozone's MiniOzoneCluster.
import { afterAll, beforeAll, describe } from '@jest/globals';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import {
  describeFileSystemReads,
  describeOzoneContract,
  MINI_CLUSTER_CAPABILITIES,
  miniClusterAdapter,
  withDatanodeTransport,
} from '@fastpath/ozone-fs-client/testing/contract';
import { DATANODE_TRANSPORTS } from './support/datanode-transports.js';

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
  describe.each(DATANODE_TRANSPORTS)('file-system reads over %s', (transport) => {
    describeFileSystemReads(
      withDatanodeTransport(() => miniClusterAdapter(cluster), transport),
      MINI_CLUSTER_CAPABILITIES,
    );
  });
});
