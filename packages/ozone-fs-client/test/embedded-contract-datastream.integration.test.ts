// The shared write suite once more against the embedded mini cluster, every key streamed (Ratis
// DataStream to the pipeline members' stream ports, PutBlocks through the Raft log) instead of
// written chunk by chunk through the log. tools/ozone runs it against Apache Ozone's datanodes
// with `hdds.container.ratis.datastream.enabled`.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import {
  describeOzoneWrites,
  MINI_CLUSTER_CAPABILITIES,
  miniClusterAdapter,
  withDataStreamWrites,
} from '@fastpath/ozone-fs-client/testing/contract';

describe('embedded mini cluster, streaming writes', () => {
  let cluster: MiniOzoneCluster;
  beforeAll(async () => {
    cluster = await startMiniOzoneCluster({ datanodes: 3, ratisWatchTimeoutMs: 1000, dataStream: true });
  });
  afterAll(async () => {
    await cluster?.close();
  });
  describeOzoneWrites(
    withDataStreamWrites(() => miniClusterAdapter(cluster, 'hadoop-rpc')),
    {
      ...MINI_CLUSTER_CAPABILITIES,
      // The async run (embedded-contract) writes the 256 MiB block; streamed, its flushes and
      // window are the same mechanism the smaller keys go through.
      wholeBlockWrites: false,
    },
  );
  // After the suite: its keys went as streams, none chunk by chunk through the log.
  it('streamed every key the suite wrote: no WriteChunk reached a datanode', () => {
    const counters = cluster.datanodes.map((d) => d.counters);
    expect(counters.map((c) => c.byCommand['WriteChunk'] ?? 0)).toEqual([0, 0, 0]);
    expect(counters.every((c) => c.streamsOpened > 0 && c.bytesWrittenByStream > 0)).toBe(true);
  });
});
