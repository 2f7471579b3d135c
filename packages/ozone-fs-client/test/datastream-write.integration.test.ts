// Ratis streaming writes (`ozone.fs.datastream.enabled`) against the embedded mini cluster, whose
// pipeline members serve Ratis's DataStream protocol when the cluster streams: each block's bytes
// reach every replica's block file as raw packets, only PutBlocks go through the Raft log, and a
// key at or below the threshold, or a pipeline that cannot stream, is handled as Ozone's client
// handles it.
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import {
  createOzoneClient,
  OzoneDataStreamUnavailableError,
  type OzoneClient,
  type OzoneClientConfig,
} from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { getBlockRequest } from '../src/internal/block-requests.js';
import { DatanodeClientManager } from '../src/internal/grpc/datanode-client-manager.js';
import { toNumber } from '../src/internal/proto/wire.js';

const KiB = 1024;
const MiB = 1024 * KiB;

let cluster: MiniOzoneCluster | undefined;
let client: OzoneClient | undefined;
const manager = new DatanodeClientManager({
  maxReceiveBytes: 32 << 20,
  maxInFlight: 4,
  tls: undefined,
  reconnectBackoffMs: 1000,
});

afterAll(() => manager.close());

afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

/** Small packets, flushes and window: several packets per PutBlock and PutBlocks per block. */
const STREAMING: Partial<OzoneClientConfig> = {
  dataStreamEnabled: true,
  dataStreamAutoThresholdBytes: 256 * KiB,
  dataStreamPacketBytes: 64 * KiB,
  dataStreamFlushSizeBytes: 256 * KiB,
  dataStreamWindowBytes: 512 * KiB,
  chunkSizeBytes: 128 * KiB,
};

async function start(
  options: {
    dataStream: boolean;
    config?: Partial<OzoneClientConfig>;
    omConfiguration?: Record<string, string>;
  } = { dataStream: true },
): Promise<{ cluster: MiniOzoneCluster; client: OzoneClient }> {
  cluster = await startMiniOzoneCluster({
    datanodes: 3,
    dataStream: options.dataStream,
    ratisWatchTimeoutMs: 2000,
    ...(options.omConfiguration ? { omConfiguration: options.omConfiguration } : {}),
  });
  client = createOzoneClient({
    omAddress: cluster.omAddress,
    userName: 'streamer',
    config: { ...STREAMING, ...options.config },
  });
  await client.createVolume('vol1');
  await client.createBucket('vol1', 'bucket1');
  return { cluster, client };
}

function commands(c: MiniOzoneCluster, name: string): number[] {
  return c.datanodes.slice(0, 3).map((d) => d.counters.byCommand[name] ?? 0);
}

describe('Ratis streaming writes on the embedded cluster', () => {
  it('stream a key above the threshold: packets to every replica, no WriteChunk, PutBlocks through the log', async () => {
    const { cluster, client } = await start();
    const data = contractKeyBytes(MiB + 5, 1);
    await client.writeKey('vol1', 'bucket1', 'streamed', data, { blockSizeBytes: 768 * KiB });
    // Every replica wrote both blocks' bytes from packets (the trailers stripped), none from WriteChunk.
    expect(cluster.datanodes.slice(0, 3).map((d) => d.counters.bytesWrittenByStream)).toEqual([
      data.length,
      data.length,
      data.length,
    ]);
    expect(cluster.datanodes.slice(0, 3).map((d) => d.counters.streamsOpened)).toEqual([2, 2, 2]);
    // The client's own count, in its registry: its pipeline's Ratis client opened the two streams.
    const streams =
      /^ratis_client_datastream_streams_total\{client="ozone-pipeline-[0-9a-f-]+"\} (\d+)$/m.exec(
        await client.metrics.metrics(),
      );
    expect(Number(streams?.[1])).toBe(2);
    expect(commands(cluster, 'WriteChunk')).toEqual([0, 0, 0]);
    // Block 1 (768 KiB): PutBlocks at 256, 512 and 768 KiB, then the eof one at its close (with
    // nothing new, as Java's forced PutBlock); block 2 (256 KiB + 5): at 256 KiB, then eof.
    expect(commands(cluster, 'PutBlock')).toEqual([6, 6, 6]);
    const details = await client.getKeyInfo('vol1', 'bucket1', 'streamed');
    expect(details.blocks.map((b) => b.lengthBytes)).toEqual([768 * KiB, 256 * KiB + 5]);
    expect(details.blocks.every((b) => b.blockCommitSequenceId > 0n)).toBe(true);
    expect(
      Buffer.from(await client.readKey('vol1', 'bucket1', 'streamed', { verifyChecksum: true })).equals(data),
    ).toBe(true);
  });

  it('cut a streamed block into packet-sized chunks, each with its checksums', async () => {
    const { client } = await start();
    const data = contractKeyBytes(300 * KiB, 2);
    await client.writeKey('vol1', 'bucket1', 'chunks', data);
    const block = (await client.getKeyInfo('vol1', 'bucket1', 'chunks')).blocks[0];
    if (!block) throw new Error('no block');
    const ref = { containerId: block.containerId, localId: block.localId, blockCommitSequenceId: 0n };
    for (const target of block.datanodes) {
      const got = await manager.channel(target.address).send(getBlockRequest(ref, target.uuid), 5000);
      const chunks = got.getBlock?.blockData.chunks ?? [];
      expect(chunks.map((c) => toNumber(c.len))).toEqual([64 * KiB, 64 * KiB, 64 * KiB, 64 * KiB, 44 * KiB]);
      expect(chunks.map((c) => toNumber(c.offset))).toEqual([0, 64 * KiB, 128 * KiB, 192 * KiB, 256 * KiB]);
      // CRC32 per 16 KiB of each chunk.
      expect(chunks.map((c) => c.checksumData.checksums?.length)).toEqual([4, 4, 4, 4, 3]);
    }
  });

  it.each([
    ['its size given at or below the threshold', true],
    ['no size given, closed at the threshold', false],
  ])('write the async way a key of %s', async (_, sizeKnown) => {
    const { cluster, client } = await start();
    const data = contractKeyBytes(256 * KiB, 3);
    const out = await client.createKey(
      'vol1',
      'bucket1',
      'small',
      sizeKnown ? { sizeBytes: data.length } : {},
    );
    for (let at = 0; at < data.length; at += 10_000) await out.write(data.subarray(at, at + 10_000));
    await out.close();
    expect(cluster.datanodes[0]?.counters.streamsOpened).toBe(0);
    expect(commands(cluster, 'WriteChunk')).toEqual([2, 2, 2]);
    expect(Buffer.from(await client.readKey('vol1', 'bucket1', 'small')).equals(data)).toBe(true);
  });

  it('stream a key of unknown size once its bytes pass the threshold, keeping what came before', async () => {
    const { cluster, client } = await start();
    const data = contractKeyBytes(256 * KiB + 1, 4);
    const out = await client.createKey('vol1', 'bucket1', 'grew');
    await out.write(data.subarray(0, 256 * KiB));
    // Nothing has left yet: the key may still go either way.
    expect(cluster.om.exchanges.filter((e) => e.request[0] === 0x08 && e.request[1] === 37)).toHaveLength(0);
    expect(cluster.datanodes[0]?.counters.streamsOpened).toBe(0);
    await out.write(data.subarray(256 * KiB));
    await out.close();
    expect(cluster.datanodes[0]?.counters.streamsOpened).toBe(1);
    expect(commands(cluster, 'WriteChunk')).toEqual([0, 0, 0]);
    expect(Buffer.from(await client.readKey('vol1', 'bucket1', 'grew')).equals(data)).toBe(true);
  });

  it('refuse a pipeline without RATIS_DATASTREAM ports before sending anything, and commit nothing', async () => {
    const { cluster, client } = await start({ dataStream: false });
    const failure = await client.writeKey('vol1', 'bucket1', 'refused', contractKeyBytes(MiB, 6)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(OzoneDataStreamUnavailableError);
    expect(failure).toMatchObject({ code: 'ERR_OZONE_DATASTREAM_UNAVAILABLE' });
    expect(commands(cluster, 'WriteChunk')).toEqual([0, 0, 0]);
    expect(await client.listKeys('vol1', 'bucket1')).toEqual([]);
  });

  it('ask the datanodes to force the block file to disk every ozone.client.datastream.sync.size bytes', async () => {
    const { cluster, client } = await start({
      dataStream: true,
      config: { dataStreamSyncSizeBytes: 128 * KiB },
    });
    await client.writeKey('vol1', 'bucket1', 'synced', contractKeyBytes(512 * KiB, 5));
    const group = cluster.ratis.group(client.writePipelines[0]?.pipelineId ?? '');
    const sent = (group?.dataStreamPackets ?? []).filter(
      (p) => p.type === 'STREAM_DATA' && p.peerId === client?.writePipelines[0]?.memberIds[0],
    );
    const synced = sent.filter((p) => p.options.includes('SYNC')).map((p) => p.streamOffset + p.dataLength);
    // 8 data packets of 64 KiB: SYNC on every second one; not on the end's PutBlock and trailer.
    expect(synced).toEqual([128 * KiB, 256 * KiB, 384 * KiB, 512 * KiB]);
    expect(sent.filter((p) => p.options.includes('CLOSE'))).toHaveLength(1);
  });

  it('hsync a streamed key: every byte so far is acknowledged and visible while it stays open', async () => {
    const { client } = await start({
      dataStream: true,
      config: { hbaseEnhancementsAllowed: true, hsyncEnabled: true },
      omConfiguration: { 'ozone.hbase.enhancements.allowed': 'true', 'ozone.fs.hsync.enabled': 'true' },
    });
    const data = contractKeyBytes(300 * KiB + 3, 7);
    const out = await client.createKey('vol1', 'bucket1', 'wal');
    await out.write(data.subarray(0, 300 * KiB));
    await out.hsync();
    const open = await client.getKeyInfo('vol1', 'bucket1', 'wal');
    expect(open.sizeBytes).toBe(300 * KiB);
    expect(
      Buffer.from(await client.readKey('vol1', 'bucket1', 'wal')).equals(data.subarray(0, 300 * KiB)),
    ).toBe(true);
    await out.write(data.subarray(300 * KiB));
    await out.close();
    expect(Buffer.from(await client.readKey('vol1', 'bucket1', 'wal')).equals(data)).toBe(true);
    expect(cluster?.datanodes[0]?.counters.byCommand['WriteChunk'] ?? 0).toBe(0);
  });

  it('send no PutBlock before every packet it names is acknowledged, the eof one right after a flush too', async () => {
    const { cluster, client } = await start({
      dataStream: true,
      config: { dataStreamAutoThresholdBytes: 0 },
    });
    // The pipeline's leader (the route's start) writes every packet late: a PutBlock that ran
    // ahead of the data would reach the log, and the leader's answer, before the block file
    // holds the chunks it names.
    cluster.datanodes[0]?.injectFault({ command: 'StreamWrite', delayMs: 100 });
    // Exactly the flush size: a PutBlock at 256 KiB, then the eof one with nothing new between.
    const data = contractKeyBytes(256 * KiB, 8);
    await client.writeKey('vol1', 'bucket1', 'flush-then-eof', data);
    expect(cluster.datanodes.slice(0, 3).map((d) => d.counters.bytesWrittenByStream)).toEqual([
      data.length,
      data.length,
      data.length,
    ]);
    expect(Buffer.from(await client.readKey('vol1', 'bucket1', 'flush-then-eof')).equals(data)).toBe(true);
  });
});
