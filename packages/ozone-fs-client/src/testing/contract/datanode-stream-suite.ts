// The datanode stream pool as one suite, run against every cluster (the embedded mini cluster and
// Ozone's own MiniOzoneCluster): many requests on one long-lived `send` stream matched first in,
// first out, with every byte of distinct ranges checked; a stream the datanode kills and one the
// client kills with requests waiting on them; deadlines on a stream that stops answering (a relay
// in front of the datanode holds its bytes); a datanode stopped and restarted mid-read; idle
// streams half-closed; a process that never closes its client still exits.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { OzoneError, type DatanodeAddress, type KeyBlockLocation, type OzoneClient } from '../../index.js';
import { getBlockRequest, readChunkRequest, type BlockRef } from '../../internal/block-requests.js';
import { DatanodeClientManager } from '../../internal/grpc/datanode-client-manager.js';
import type { DatanodeChannel } from '../../internal/grpc/datanode-channel.js';
import { toNumber, type hadoop } from '../../internal/proto/wire.js';
import { contractKeyBytes } from './contract-key-bytes.js';
import { FreezableRelay } from './freezable-relay.js';
import type { OzoneClusterAdapter, OzoneContractCapabilities } from './ozone-cluster-adapter.js';
import { runScriptUntilExit } from './run-script-until-exit.js';
import { writeContractKey } from './write-contract-key.js';
import { freshVolume, suiteClient } from './suite-client.js';
import { until } from './until.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const BUCKET = 'streams';
/** One block of eight 1 MiB chunks, 16 KiB per checksum. */
const KEY = { key: 'streams', sizeBytes: 8 * MiB, seed: 61, chunkSizeBytes: MiB } as const;

interface Chunk {
  info: hadoop.hdds.datanode.IChunkInfo;
  start: number;
  length: number;
}

/** 64 distinct ranges, each inside one chunk, of 64 different lengths. */
function distinctRanges(count = 64): Array<{ offset: number; length: number }> {
  return Array.from({ length: count }, (_, i) => {
    const length = 4 * KiB + 517 * i;
    let offset = (i * 131_071 + 7 * i * i) % (KEY.sizeBytes - length);
    const chunkEnd = (Math.floor(offset / KEY.chunkSizeBytes) + 1) * KEY.chunkSizeBytes;
    if (offset + length > chunkEnd) offset = chunkEnd - length;
    return { offset, length };
  });
}

/**
 * Registers the stream-pool suite. Call it inside a `describe` whose `beforeAll` starts the
 * cluster; `adapter()` is called after that. Its key goes into a fresh volume of its own.
 */
export function describeDatanodeStreams(
  adapter: () => OzoneClusterAdapter,
  capabilities: OzoneContractCapabilities,
  /** The pool's transport: grpc-js (`stream-pool`) or one of fastpath's own HTTP/2 sessions. */
  transport: 'stream-pool' | 'http2-stream-pool' | 'socket-stream-pool' = 'stream-pool',
): void {
  let volume = '';
  let client: OzoneClient;
  let block: KeyBlockLocation;
  const expected = contractKeyBytes(KEY.sizeBytes, KEY.seed);
  const managers: DatanodeClientManager[] = [];
  const relays: FreezableRelay[] = [];

  /** Datanode channels as the client makes them, with a stream pool of `streams`. */
  function manager(streams: number, streamIdleMs = 60_000): DatanodeClientManager {
    const m = new DatanodeClientManager({
      maxReceiveBytes: 32 * MiB,
      maxInFlight: 128,
      tls: adapter().tls,
      reconnectBackoffMs: 100,
      transport,
      streamsPerChannel: streams,
      streamIdleMs,
    });
    managers.push(m);
    return m;
  }

  const ref = (): BlockRef => ({
    containerId: block.containerId,
    localId: block.localId,
    blockCommitSequenceId: block.blockCommitSequenceId,
  });

  async function chunksOf(channel: DatanodeChannel, datanode: DatanodeAddress): Promise<Chunk[]> {
    const r = await channel.send(getBlockRequest(ref(), datanode.uuid), 30_000);
    let start = 0;
    return (r.getBlock?.blockData.chunks ?? []).map((info) => {
      const length = toNumber(info.len);
      const chunk = { info, start, length };
      start += length;
      return chunk;
    });
  }

  /** ReadChunk of `length` bytes at `offset` of the key (inside one chunk), without verification. */
  async function readRange(
    channel: DatanodeChannel,
    datanode: DatanodeAddress,
    chunks: readonly Chunk[],
    range: { offset: number; length: number },
    timeoutMs = 30_000,
  ): Promise<Buffer> {
    const chunk = chunks.find(
      (c) => range.offset >= c.start && range.offset + range.length <= c.start + c.length,
    );
    if (!chunk) throw new Error(`no chunk holds ${range.offset}+${range.length}`);
    const at = toNumber(chunk.info.offset) + (range.offset - chunk.start);
    const r = await channel.send(
      readChunkRequest(ref(), chunk.info, at, range.length, datanode.uuid),
      timeoutMs,
    );
    return Buffer.concat((r.readChunk?.dataBuffers?.buffers ?? []).map((b) => Buffer.from(b)));
  }

  const want = (range: { offset: number; length: number }): Buffer =>
    expected.subarray(range.offset, range.offset + range.length);

  const first = (): DatanodeAddress => block.datanodes[0] as DatanodeAddress;

  beforeAll(async () => {
    const a = adapter();
    client = suiteClient(a);
    volume = await freshVolume(client, 'ds', BUCKET);
    await writeContractKey(a, client, {
      volume,
      bucket: BUCKET,
      ...KEY,
      checksumType: 'CRC32',
      bytesPerChecksum: 16 * KiB,
      blockSizeBytes: 256 * MiB,
      replication: 'THREE',
    });
    block = (await client.getKeyInfo(volume, BUCKET, KEY.key)).blocks[0] as KeyBlockLocation;
  });

  afterAll(async () => {
    for (const m of managers) m.close();
    for (const r of relays) await r.close();
    client?.close();
  });

  it('matches 64 concurrent requests on one stream first in, first out: every byte of 64 distinct ranges', async () => {
    const m = manager(1);
    const channel = m.channel(first().address);
    const chunks = await chunksOf(channel, first());
    const ranges = distinctRanges();
    const answers = await Promise.all(ranges.map((r) => readRange(channel, first(), chunks, r)));
    ranges.forEach((r, i) => expect({ i, same: answers[i]?.equals(want(r)) }).toEqual({ i, same: true }));
    expect(m.streamStats()).toMatchObject({ opened: 1, failed: 0, reissued: 0 });
  });

  it.each([true, false])(
    'answers 64 concurrent positional reads on one key stream (verify %s), every byte checked',
    async (verifyChecksum) => {
      const c = suiteClient(adapter(), { datanodeTransport: transport, datanodeStreamsPerChannel: 4 });
      try {
        const stream = await c.openKey(volume, BUCKET, KEY.key, { verifyChecksum });
        const ranges = distinctRanges();
        const answers = await Promise.all(ranges.map((r) => stream.readFully(r.offset, r.length)));
        ranges.forEach((r, i) => expect({ i, same: answers[i]?.equals(want(r)) }).toEqual({ i, same: true }));
        expect(stream.stats.failovers).toBe(0);
        const s = c.datanodeStreamStats;
        expect(s.opened).toBeGreaterThanOrEqual(1);
        expect(s.opened).toBeLessThanOrEqual(4);
        expect(s).toMatchObject({ failed: 0, reissued: 0 });
      } finally {
        c.close();
      }
    },
  );

  it('a stream the datanode fails (a request it cannot parse) loses the requests behind it: they are sent again on a fresh stream and answered', async () => {
    const m = manager(1);
    const channel = m.channel(first().address);
    const chunks = await chunksOf(channel, first());
    const ranges = distinctRanges(16);
    const before = ranges.slice(0, 8).map((r) => readRange(channel, first(), chunks, r));
    // A command number the protocol does not define: Java's proto2 parser keeps it as an unknown
    // field and then misses the required cmdType, so the datanode cannot parse the request.
    const malformed = channel
      .send({ ...getBlockRequest(ref(), first().uuid), cmdType: 99 as hadoop.hdds.datanode.Type }, 30_000)
      .then(
        () => 'answered',
        (e: unknown) => e,
      );
    const after = ranges.slice(8).map((r) => readRange(channel, first(), chunks, r));
    const answers = await Promise.all([...before, ...after]);
    ranges.forEach((r, i) => expect({ i, same: answers[i]?.equals(want(r)) }).toEqual({ i, same: true }));
    expect(await malformed).toBeInstanceOf(OzoneError);
    expect(m.streamStats()).toMatchObject({ opened: 2, failed: 1, reissued: 8 });
  });

  it('a stream killed with requests waiting: every one is sent again and answered', async () => {
    const m = manager(2);
    const channel = m.channel(first().address);
    const chunks = await chunksOf(channel, first());
    const ranges = distinctRanges(16);
    const pending = ranges.map((r) => readRange(channel, first(), chunks, r));
    channel.killStreams('killed by the test');
    const answers = await Promise.all(pending);
    ranges.forEach((r, i) => expect({ i, same: answers[i]?.equals(want(r)) }).toEqual({ i, same: true }));
    expect(m.streamStats()).toMatchObject({ reissued: 16, deadlinesExceeded: 0 });
  });

  it('a stream that stops answering fails its requests at their deadlines, and the channel serves again afterwards', async () => {
    const relay = await FreezableRelay.start(first().address);
    relays.push(relay);
    const m = manager(1);
    const channel = m.channel(relay.address);
    const chunks = await chunksOf(channel, first());
    const ranges = distinctRanges(4);
    relay.freeze();
    const outcomes = await Promise.all(
      ranges.map((r) =>
        readRange(channel, first(), chunks, r, 1_000).then(
          () => 'answered',
          (e: unknown) => e,
        ),
      ),
    );
    for (const o of outcomes)
      expect(o).toMatchObject({ code: 'ERR_OZONE_DEADLINE_EXCEEDED', retriable: true });
    expect(m.streamStats().deadlinesExceeded).toBe(4);
    relay.thaw();
    const again = ranges[0] as { offset: number; length: number };
    expect((await readRange(channel, first(), chunks, again)).equals(want(again))).toBe(true);
  });

  it('half-closes streams idle for the idle bound', async () => {
    const m = manager(4, 200);
    const channel = m.channel(first().address);
    const chunks = await chunksOf(channel, first());
    const ranges = distinctRanges(16);
    const answers = await Promise.all(ranges.map((r) => readRange(channel, first(), chunks, r)));
    ranges.forEach((r, i) => expect(answers[i]?.equals(want(r))).toBe(true));
    expect(m.streamStats().opened).toBeGreaterThanOrEqual(1);
    await until('every stream half-closed and ended', () => m.streamStats().open === 0);
    const s = m.streamStats();
    expect(s).toMatchObject({ failed: 0, idleClosed: s.opened });
  });

  it('a process that never closes its client exits once its reads are done', async () => {
    const a = adapter();
    const script = `
      import { createOzoneClient } from '@fastpath/ozone-fs-client';
      import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing';
      const [omAddress, volume, bucket, key, size, seed, tls] = process.argv.slice(1);
      const client = createOzoneClient({ omAddress, userName: 'reader', config: { datanodeTransport: '${transport}' }, ...(tls ? { tls: JSON.parse(tls) } : {}) });
      const stream = await client.openKey(volume, bucket, key, { verifyChecksum: true });
      const data = Buffer.concat(await Promise.all(Array.from({ length: 8 }, (_, i) => stream.readFully(i * (Number(size) / 8), Number(size) / 8))));
      process.stdout.write(JSON.stringify({ same: data.equals(contractKeyBytes(Number(size), Number(seed))), open: client.datanodeStreamStats.open }));
    `;
    const out = await runScriptUntilExit(
      script,
      [
        a.omAddress,
        volume,
        BUCKET,
        KEY.key,
        String(KEY.sizeBytes),
        String(KEY.seed),
        ...(a.tls ? [JSON.stringify(a.tls)] : []),
      ],
      60_000,
    );
    // It read every byte through a pool that was still open when its work was done.
    expect(JSON.parse(out)).toEqual({ same: true, open: expect.any(Number) });
    expect((JSON.parse(out) as { open: number }).open).toBeGreaterThanOrEqual(1);
  }, 90_000);

  if (capabilities.stopDatanode) {
    it('a datanode stopped with reads in flight: reads fail over with every byte right; restarted, its channel serves again', async () => {
      const c = suiteClient(adapter(), {
        datanodeTransport: transport,
        readRetryIntervalMs: 100,
        readTimeoutMs: 10_000,
      });
      const m = manager(2);
      try {
        const stream = await c.openKey(volume, BUCKET, KEY.key, { verifyChecksum: true });
        await stream.readFully(0, 1); // the first replica answered GetBlock: it is tried first
        const uuid = first().uuid;
        const channel = m.channel(first().address);
        const chunks = await chunksOf(channel, first());
        const ranges = distinctRanges();
        const viaStream = ranges.map((r) => stream.readFully(r.offset, r.length));
        const viaChannel = ranges.map((r) =>
          readRange(channel, first(), chunks, r).then(
            (b) => b,
            (e: unknown) => e,
          ),
        );
        const restart = await adapter().stopReplica?.({ volume, bucket: BUCKET, key: KEY.key, replica: 0 });
        const answers = await Promise.all(viaStream);
        ranges.forEach((r, i) => expect({ i, same: answers[i]?.equals(want(r)) }).toEqual({ i, same: true }));
        // Straight at the stopped datanode: an answer is the right bytes, anything else a typed error.
        const direct = await Promise.all(viaChannel);
        direct.forEach((d, i) =>
          expect({
            i,
            ok: Buffer.isBuffer(d) ? d.equals(want(ranges[i]!)) : d instanceof OzoneError,
          }).toEqual({
            i,
            ok: true,
          }),
        );
        await restart?.();
        const now = (await c.getKeyInfo(volume, BUCKET, KEY.key)).blocks[0]?.datanodes.find(
          (d) => d.uuid === uuid,
        );
        expect(now).toBeDefined();
        const back = m.channel((now as DatanodeAddress).address);
        const range = ranges[5] as { offset: number; length: number };
        let answer: Buffer | undefined;
        await until(
          'the restarted datanode to answer on its channel',
          async () => {
            answer = await readRange(
              back,
              now as DatanodeAddress,
              await chunksOf(back, now as DatanodeAddress),
              range,
              5_000,
            );
            return true;
          },
          180_000,
        );
        expect(answer?.equals(want(range))).toBe(true);
      } finally {
        m.close();
        c.close();
      }
    }, 300_000);
  }
}
