// The shared suites against a real Apache Ozone MiniOzoneCluster, one cluster for both: keys are
// written by Ozone's own Java client (through the launcher) and read by fastpath over the real
// datanodes' gRPC service. The client contract: volumes, buckets, lookups, listings, renames and
// deletes are fastpath's own calls to the real OM; fastpath's own writes (through Ratis) are
// proved in real-ozone-write.integration.test.ts. The file-system reads:
// setVerifyChecksum per instance and HBase's pattern, positional reads, widening (in the client's
// metrics and the datanodes' own ContainerMetrics), failover on bytes overwritten in a block file
// on disk, a datanode down and the retry bound, in every datanode transport. The stream pool
// (over grpc-js and over fastpath's own HTTP/2 session): requests matched in order on long-lived
// streams, streams failed, killed and stalled, a datanode restarted mid-read, idle streams closed.
// Streaming ReadBlock (opt-in) against the real datanodes' ReadBlock, over grpc-js and fastpath's
// own HTTP/2 session: streamed blocks and ranges, a corrupt replica, uneven chunks on ReadChunk.
import { afterAll, beforeAll, describe } from '@jest/globals';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import {
  describeDatanodeStreams,
  describeFileSystemReads,
  describeOzoneContract,
  describeReadBlockReads,
  withDatanodeTransport,
  type OzoneClusterAdapter,
} from '@fastpath/ozone-fs-client/testing/contract';
import { startRealOzoneCluster, type RealOzoneCluster } from '@fastpath/ozone-fixture';
import { REAL_CLUSTER_CAPABILITIES, realClusterAdapter } from './support/real-cluster-adapter.js';

// One MiniOzoneCluster for the whole file (its start-up is the slow part); its 64 MiB writes take
// a while on 2 cores.
jest.setTimeout(600_000);

describe('real MiniOzoneCluster (Apache Ozone 2.2.0)', () => {
  let cluster: RealOzoneCluster;
  let inspector: OzoneClient;
  let adapter: OzoneClusterAdapter;

  beforeAll(async () => {
    cluster = await startRealOzoneCluster({ datanodes: 3 });
    inspector = createOzoneClient({ omAddress: cluster.omGrpcAddress, userName: 'fixture' });
    adapter = realClusterAdapter(cluster, inspector);
  });

  afterAll(async () => {
    inspector?.close();
    await cluster?.stop();
  });

  describe('Ozone client contract', () => {
    describeOzoneContract(() => adapter, REAL_CLUSTER_CAPABILITIES);
  });
  describe.each(['stream-pool', 'call-per-request', 'http2-stream-pool', 'socket-stream-pool'] as const)(
    'file-system reads over %s',
    (transport) => {
      describeFileSystemReads(
        withDatanodeTransport(() => adapter, transport),
        REAL_CLUSTER_CAPABILITIES,
      );
    },
  );
  describe.each(['stream-pool', 'http2-stream-pool', 'socket-stream-pool'] as const)(
    'streaming ReadBlock over %s',
    (transport) => {
      describeReadBlockReads(
        withDatanodeTransport(() => adapter, transport),
        REAL_CLUSTER_CAPABILITIES,
      );
    },
  );
  describe.each(['stream-pool', 'http2-stream-pool', 'socket-stream-pool'] as const)(
    'datanode stream pool over %s',
    (transport) => {
      describeDatanodeStreams(() => adapter, REAL_CLUSTER_CAPABILITIES, transport);
    },
  );
});
