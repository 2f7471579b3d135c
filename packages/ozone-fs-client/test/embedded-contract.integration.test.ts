// The shared suites against the embedded mini cluster (plaintext): the client contract and the
// file system's reads over each OM transport (Hadoop RPC and gRPC; the reads in every datanode
// transport), and fastpath's writes. tools/ozone runs the same suites against Apache Ozone's
// MiniOzoneCluster. The client's default bulk engine is the native one where its addon is built
// (CI builds it); half the reads and writes run on the JS engine.
import { afterAll, beforeAll, describe } from '@jest/globals';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import {
  describeFileSystemReads,
  describeOzoneContract,
  describeOzoneWrites,
  MINI_CLUSTER_CAPABILITIES,
  miniClusterAdapter,
  withBulkEngine,
  withDatanodeTransport,
  withRatisChannel,
} from '@fastpath/ozone-fs-client/testing/contract';
import { RAFT_GRPC_TRANSPORTS } from '@fastpath/ratis-client';
import { DATANODE_TRANSPORTS } from './support/datanode-transports.js';
import { OM_TRANSPORTS } from './support/om-transports.js';

describe('embedded mini cluster', () => {
  let cluster: MiniOzoneCluster;
  beforeAll(async () => {
    // A short watch timeout: with a member stopped (the write suite's last tests), an
    // ALL_COMMITTED watch is answered NotReplicated soon, and the client watches again at
    // MAJORITY_COMMITTED.
    cluster = await startMiniOzoneCluster({ datanodes: 3, ratisWatchTimeoutMs: 1000 });
  });
  afterAll(async () => {
    await cluster?.close();
  });
  // The reads over each datanode transport run twice, once per OM transport: the first time on
  // the default bulk engine, the second on the JS one.
  describe.each(OM_TRANSPORTS.map((om, i) => [om, i === 0 ? 'auto' : 'js'] as const))(
    'OM over %s, %s bulk engine',
    (omTransport, engine) => {
      describe('Ozone client contract', () => {
        describeOzoneContract(() => miniClusterAdapter(cluster, omTransport), MINI_CLUSTER_CAPABILITIES);
      });
      describe.each(DATANODE_TRANSPORTS)('file-system reads over %s', (transport) => {
        describeFileSystemReads(
          withBulkEngine(
            withDatanodeTransport(() => miniClusterAdapter(cluster, omTransport), transport),
            engine,
          ),
          MINI_CLUSTER_CAPABILITIES,
        );
      });
    },
  );
  // Last: it stops datanodes mid-write (and starts them again). Its OM calls (create, allocate,
  // commit) are the contract's, run over both transports above; here over Hadoop RPC, Ozone's
  // default. The Ratis streams on each HTTP/2 session (`ozone.client.ratis.grpc.channel`), the
  // second with the JS bulk engine (the first has the default).
  describe.each(RAFT_GRPC_TRANSPORTS.map((channel, i) => [channel, i === 0 ? 'auto' : 'js'] as const))(
    'Ozone writes, Ratis streams on the %s session, %s bulk engine',
    (channel, engine) => {
      describeOzoneWrites(
        withBulkEngine(
          withRatisChannel(() => miniClusterAdapter(cluster, 'hadoop-rpc'), channel),
          engine,
        ),
        MINI_CLUSTER_CAPABILITIES,
      );
    },
  );
});
