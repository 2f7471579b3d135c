// The client contract and the file system's reads against the embedded cluster in OM HA mode, over
// each OM transport: every call through the failover proxy, file systems at ofs://<serviceId>/,
// and the leader moved between the two suites.
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import {
  describeFileSystemReads,
  describeOzoneContract,
  MINI_CLUSTER_CAPABILITIES,
  miniClusterAdapter,
} from '@fastpath/ozone-fs-client/testing/contract';
import { OM_TRANSPORTS } from './support/om-transports.js';

describe.each(OM_TRANSPORTS)('embedded mini cluster with three OMs, over %s', (omTransport) => {
  let cluster: MiniOzoneCluster;
  beforeAll(async () => {
    cluster = await startMiniOzoneCluster({ datanodes: 3, omHa: 3, ratisWatchTimeoutMs: 1000 });
  });
  afterAll(async () => {
    await cluster?.close();
  });
  describe('Ozone client contract over the service id', () => {
    describeOzoneContract(() => miniClusterAdapter(cluster, omTransport), MINI_CLUSTER_CAPABILITIES);
  });
  describe('leader moves', () => {
    it('to omNode-2', () => cluster.transferOmLeader('omNode-2'));
  });
  describe('file-system reads at ofs://omservice/', () => {
    describeFileSystemReads(() => miniClusterAdapter(cluster, omTransport), MINI_CLUSTER_CAPABILITIES);
  });
});
