// The datanode stream pool against the embedded mini cluster (tools/ozone runs the same suite
// against Apache Ozone's MiniOzoneCluster), plus what only the embedded datanodes can do: a
// request the datanode never answers holding the stream behind it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import {
  contractKeyBytes,
  describeDatanodeStreams,
  MINI_CLUSTER_CAPABILITIES,
  miniClusterAdapter,
} from '@fastpath/ozone-fs-client/testing/contract';

let cluster: MiniOzoneCluster;
beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3 });
});
afterAll(async () => {
  await cluster?.close();
});

describe.each(['stream-pool', 'http2-stream-pool', 'socket-stream-pool'] as const)(
  'datanode stream pool over %s',
  (transport) => {
    describeDatanodeStreams(() => miniClusterAdapter(cluster), MINI_CLUSTER_CAPABILITIES, transport);
  },
);

describe('a request that is never answered', () => {
  it('holds the requests behind it on its stream until its deadline; they are sent again and the read fails over, every byte right', async () => {
    const client = createOzoneClient({
      omAddress: cluster.omAddress,
      userName: 'reader',
      config: {
        datanodeTransport: 'stream-pool',
        datanodeStreamsPerChannel: 1,
        readTimeoutMs: 1_000,
        readRetryIntervalMs: 0,
      },
    });
    try {
      await client.createVolume('never');
      await client.createBucket('never', 'bkt');
      const content = contractKeyBytes(1 << 20, 9);
      await client.writeKey('never', 'bkt', 'k', content);
      const stream = await client.openKey('never', 'bkt', 'k', { verifyChecksum: false });
      await stream.readFully(0, 1);
      // The first replica swallows the next ReadChunk; the ones behind it on its stream wait.
      const first = cluster.om.blockAt('never', 'bkt', 'k', 0).datanodes[0] as string;
      cluster.injectFault(first, { command: 'ReadChunk', response: 'never', times: 1 });
      const ranges = Array.from({ length: 8 }, (_, i) => ({ offset: i * 100_000, length: 50_000 + i }));
      const answers = await Promise.all(ranges.map((r) => stream.readFully(r.offset, r.length)));
      ranges.forEach((r, i) =>
        expect(answers[i]?.equals(content.subarray(r.offset, r.offset + r.length))).toBe(true),
      );
      const s = client.datanodeStreamStats;
      expect(s.deadlinesExceeded).toBeGreaterThanOrEqual(1);
      expect(s.failed).toBeGreaterThanOrEqual(1);
    } finally {
      client.close();
    }
  });
});
