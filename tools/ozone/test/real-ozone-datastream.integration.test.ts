// Ratis streaming writes (HDDS-4454) against Apache Ozone's datanodes with
// `hdds.container.ratis.datastream.enabled`: the shared write suite with every key streamed by
// fastpath (Ratis DataStream to the pipeline's RATIS_DATASTREAM ports, PutBlocks through the Raft
// log), each key read back by Ozone's Java client with checksums verified and every replica's
// block checked; a datanode stopped mid-stream (the key completes in a new block or is never
// committed); and a key streamed by Java's own writer read by fastpath.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import {
  contractKeyBytes,
  describeOzoneWrites,
  type OzoneClusterAdapter,
  withDataStreamWrites,
} from '@fastpath/ozone-fs-client/testing/contract';
import { startRealOzoneCluster, type RealOzoneCluster } from '@fastpath/ozone-fixture';
import { REAL_CLUSTER_CAPABILITIES, realClusterAdapter } from './support/real-cluster-adapter.js';

jest.setTimeout(600_000);

const MiB = 1024 * 1024;

describe('fastpath streams keys to a real MiniOzoneCluster (Ratis DataStream)', () => {
  let cluster: RealOzoneCluster;
  let client: OzoneClient;
  let adapter: OzoneClusterAdapter;

  beforeAll(async () => {
    cluster = await startRealOzoneCluster({
      datanodes: 3,
      dataStream: true,
      configuration: { 'hdds.ratis.raft.server.watch.timeout': '5s' },
    });
    client = createOzoneClient({ omAddress: cluster.omGrpcAddress, userName: 'writer' });
    adapter = realClusterAdapter(cluster, client);
  });

  afterAll(async () => {
    client?.close();
    await cluster?.stop();
  });

  it('every datanode lists its own RATIS_DATASTREAM port', () => {
    const ports = cluster.datanodes.map((d) => d.ports['RATIS_DATASTREAM']);
    expect(ports.every((p) => typeof p === 'number' && p > 0)).toBe(true);
    expect(new Set(ports).size).toBe(cluster.datanodes.length);
  });

  it("fastpath reads a key that Java's streaming writer wrote", async () => {
    const size = 9 * MiB + 5;
    await cluster.writeKeys([
      { volume: 'dsvol', bucket: 'javastream', key: 'by-java', size, seed: 7, dataStream: true },
    ]);
    const data = await client.readKey('dsvol', 'javastream', 'by-java', { verifyChecksum: true });
    expect(Buffer.from(data).equals(contractKeyBytes(size, 7))).toBe(true);
  });

  it("streams a key: every datanode opens and links the stream and runs no WriteChunk (Ozone's own counters)", async () => {
    const ops = async (command: string) =>
      (await cluster.datanodeCounters()).map((d) => d.commands[command]?.ops ?? 0);
    const [chunksBefore, initsBefore] = [await ops('WriteChunk'), await ops('StreamInit')];
    const streamer = createOzoneClient({
      omAddress: cluster.omGrpcAddress,
      userName: 'writer',
      config: { dataStreamEnabled: true },
    });
    try {
      await streamer.createVolume('dsvol2');
      await streamer.createBucket('dsvol2', 'counted');
      const data = contractKeyBytes(6 * MiB + 1, 9);
      await streamer.writeKey('dsvol2', 'counted', 'streamed', data);
      expect((await ops('WriteChunk')).map((n, i) => n - (chunksBefore[i] ?? 0))).toEqual([0, 0, 0]);
      // Twice on each: when the stream opens its block file, and when the forwarded entry that
      // links the stream is applied from the log (the StreamInit request is its log entry).
      expect((await ops('StreamInit')).map((n, i) => n - (initsBefore[i] ?? 0))).toEqual([2, 2, 2]);
      expect(await cluster.readKeyWithJava('dsvol2', 'counted', 'streamed')).toEqual({
        bytesRead: data.length,
        sha256: createHash('sha256').update(data).digest('hex'),
      });
    } finally {
      streamer.close();
    }
  });

  // Last: its stop tests stop a datanode of the pipeline (and start it again).
  describe('the shared write suite, every key streamed', () => {
    describeOzoneWrites(
      withDataStreamWrites(() => adapter),
      {
        ...REAL_CLUSTER_CAPABILITIES,
        // The async run (real-ozone-write) writes the 256 MiB block.
        wholeBlockWrites: false,
      },
    );
  });
});
