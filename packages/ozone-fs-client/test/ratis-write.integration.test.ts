// The embedded mini cluster takes writes the way a real one does: through each pipeline's Raft
// group on the datanodes' RATIS ports (an embedded group of @fastpath/ratis-client/testing whose
// state machine applies every command to each member's replica). These tests use its fault hooks:
// a follower answering NotLeader, a container that refuses a command. (A follower and the leader
// stopped mid-write are cases of the shared write suite, run in embedded-contract.)
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { createOzoneClient, DatanodeResultError, type OzoneClient } from '@fastpath/ozone-fs-client';
import {
  miniPipelineId,
  startMiniOzoneCluster,
  type MiniOzoneCluster,
} from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import * as checksum from '../src/internal/checksum.js';

const KiB = 1024;

let cluster: MiniOzoneCluster;
let client: OzoneClient;

beforeEach(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3 });
  client = createOzoneClient({
    omAddress: cluster.omAddress,
    userName: 'ratis',
    // Small chunks and flushes: several WriteChunks and PutBlocks per block.
    config: { chunkSizeBytes: 64 * KiB, flushSizeBytes: 128 * KiB, maxBufferSizeBytes: 256 * KiB },
  });
  await client.createVolume('vol1');
  await client.createBucket('vol1', 'bucket1');
});

afterEach(async () => {
  client?.close();
  await cluster?.close();
});

function threeWayGroup() {
  const group = cluster.ratis.group(miniPipelineId(cluster.datanodes.slice(0, 3).map((d) => d.uuid)));
  if (!group) throw new Error('no RATIS/THREE pipeline group');
  return group;
}

describe("writes through the embedded pipelines' Raft groups", () => {
  it("apply every command once on each replica and commit each block with its PutBlock's log index", async () => {
    const data = contractKeyBytes(300 * KiB + 5, 1);
    await client.writeKey('vol1', 'bucket1', 'k', data, { blockSizeBytes: 256 * KiB });
    const details = await client.getKeyInfo('vol1', 'bucket1', 'k');
    expect(details.blocks.map((b) => b.lengthBytes)).toEqual([256 * KiB, 44 * KiB + 5]);
    const bcsids = details.blocks.map((b) => b.blockCommitSequenceId);
    expect(bcsids[0]).toBeGreaterThan(0n);
    // Log indexes grow: the second block's last PutBlock came after the first's.
    expect((bcsids[1] as bigint) > (bcsids[0] as bigint)).toBe(true);
    expect(BigInt(threeWayGroup().lastIndex)).toBe(bcsids[1]);
    // 5 chunks (4 of 64 KiB, 1 of 44 KiB + 5); PutBlocks at 128 KiB and 256 KiB (flushes), then
    // with eof at the end of each block: on every member.
    for (const d of cluster.datanodes)
      expect({
        WriteChunk: d.counters.byCommand['WriteChunk'],
        PutBlock: d.counters.byCommand['PutBlock'],
      }).toEqual({
        WriteChunk: 5,
        PutBlock: 4,
      });
    expect(Buffer.from(await client.readKey('vol1', 'bucket1', 'k')).equals(data)).toBe(true);
  });

  it('follow a NotLeader answer to the leader the follower names', async () => {
    const group = threeWayGroup();
    const third = cluster.datanodes[2]?.uuid as string;
    await group.transferLeadership(third);
    const data = contractKeyBytes(200 * KiB, 2);
    await client.writeKey('vol1', 'bucket1', 'moved', data);
    expect(await group.leaderId()).toBe(third);
    expect(Buffer.from(await client.readKey('vol1', 'bucket1', 'moved')).equals(data)).toBe(true);
  });

  it('fail a key whose datanode fails a command (not a container closing), name the result, and never commit it', async () => {
    cluster.injectFault(0, { command: 'PutBlock', result: 'IO_EXCEPTION', times: 1 });
    const out = await client.createKey('vol1', 'bucket1', 'refused');
    await out.write(contractKeyBytes(100 * KiB, 4));
    const failure = await out.close().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DatanodeResultError);
    expect(failure).toMatchObject({ code: 'ERR_OZONE_DATANODE_RESULT', result: 'IO_EXCEPTION' });
    expect(await client.listKeys('vol1', 'bucket1')).toEqual([]);
  });

  it('move a block whose container closed to a new block in another container, excluding the closed one', async () => {
    cluster.injectFault(0, { command: 'WriteChunk', result: 'CLOSED_CONTAINER_IO', times: 1 });
    const data = contractKeyBytes(300 * KiB + 7, 5);
    await client.writeKey('vol1', 'bucket1', 'moved-block', data);
    const details = await client.getKeyInfo('vol1', 'bucket1', 'moved-block');
    // Nothing of the first block was acknowledged: the key lives in the next container only.
    expect(details.blocks.map((b) => b.containerId)).toEqual([2n]);
    expect(details.blocks.every((b) => b.blockCommitSequenceId > 0n)).toBe(true);
    const allocate = cluster.om.exchanges.find((e) => e.request[0] === 0x08 && e.request[1] === 37);
    expect(allocate).toBeDefined();
    expect(Buffer.from(await client.readKey('vol1', 'bucket1', 'moved-block')).equals(data)).toBe(true);
  });

  it('keep what a watched PutBlock acknowledged when the container closes later in the block', async () => {
    const data = contractKeyBytes(600 * KiB + 3, 6);
    const out = await client.createKey('vol1', 'bucket1', 'kept-part', { blockSizeBytes: 1024 * KiB });
    await out.write(data.subarray(0, 256 * KiB));
    cluster.injectFault(0, { command: 'WriteChunk', result: 'CLOSED_CONTAINER_IO', times: 1 });
    await out.write(data.subarray(256 * KiB));
    await out.close();
    const details = await client.getKeyInfo('vol1', 'bucket1', 'kept-part');
    expect(details.sizeBytes).toBe(data.length);
    // The last block is in a container after the closed one.
    expect(details.blocks[details.blocks.length - 1]?.containerId).toBe(2n);
    expect(Buffer.from(await client.readKey('vol1', 'bucket1', 'kept-part')).equals(data)).toBe(true);
  });

  it('give up after ozone.client.max.retries new blocks, never committing the key', async () => {
    cluster.injectFault(0, { command: 'WriteChunk', result: 'CLOSED_CONTAINER_IO' });
    const failure = await client.writeKey('vol1', 'bucket1', 'never', contractKeyBytes(10 * KiB, 7)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'ERR_OZONE_DATANODE_RESULT', result: 'CLOSED_CONTAINER_IO' });
    // The first block and one per retry (5), each in a container of its own.
    expect(cluster.datanodes[0]?.counters.byCommand['WriteChunk']).toBe(6);
    expect(await client.listKeys('vol1', 'bucket1')).toEqual([]);
  });

  it.each([
    ['its size given to CreateKey', true],
    ['no size given', false],
  ])(
    'copy each written byte once, into the chunk it is sent in, and checksum each chunk once (%s)',
    async (_, sizeKnown) => {
      const data = contractKeyBytes(300 * KiB + 5, 8);
      // The caller's buffers, each with a memory of its own, cut where no chunk ends.
      const pieces: Uint8Array[] = [];
      for (let o = 0; o < data.length; o += 20 * KiB) pieces.push(data.slice(o, o + 20 * KiB));
      const callers = new Set<ArrayBufferLike>(pieces.map((p) => p.buffer));
      const out = await client.createKey('vol1', 'bucket1', `once-${sizeKnown}`, {
        ...(sizeKnown ? { sizeBytes: data.length } : {}),
      });
      const set = jest.spyOn(Uint8Array.prototype, 'set');
      const copy = jest.spyOn(Buffer.prototype, 'copy');
      const concat = jest.spyOn(Buffer, 'concat');
      const from = jest.spyOn(Buffer, 'from');
      const slice = jest.spyOn(Uint8Array.prototype, 'slice');
      const sums = jest.spyOn(checksum, 'computeChecksums');
      try {
        for (const piece of pieces) await out.write(piece);
        await out.close();
        // Every copy in the process meanwhile (the embedded datanodes' too), by its source.
        const copies: Array<{ source: Uint8Array; target: ArrayBufferLike | undefined; bytes: number }> = [
          ...set.mock.calls.map((args, i) => {
            const source = args[0] as Uint8Array;
            const target = (set.mock.contexts[i] as Uint8Array).buffer;
            return { source, target, bytes: source.length };
          }),
          ...copy.mock.calls.map((args, i) => {
            const source = copy.mock.contexts[i] as Buffer;
            const [target, , start, end] = args as unknown as [Uint8Array, number?, number?, number?];
            return { source, target: target.buffer, bytes: (end ?? source.length) - (start ?? 0) };
          }),
          ...concat.mock.calls.flatMap((args) =>
            [...args[0]].map((source) => ({ source, target: undefined, bytes: source.length })),
          ),
          // Buffer.from of a view copies it (of an ArrayBuffer it does not); slice copies.
          ...from.mock.calls
            .map((args) => args[0])
            .filter((source): source is Uint8Array => source instanceof Uint8Array)
            .map((source) => ({ source, target: undefined, bytes: source.length })),
          ...slice.mock.results.map((r, i) => ({
            source: slice.mock.contexts[i] as Uint8Array,
            target: undefined,
            bytes: (r.value as Uint8Array).length,
          })),
        ];
        const fromCaller = copies.filter((c) => callers.has(c.source.buffer));
        expect(fromCaller.reduce((n, c) => n + c.bytes, 0)).toBe(data.length);
        // What they were copied into (the chunks' memory) is never copied from again.
        const chunkMemory = new Set(fromCaller.map((c) => c.target));
        expect(chunkMemory.has(undefined)).toBe(false);
        expect(copies.filter((c) => chunkMemory.has(c.source.buffer))).toEqual([]);
        // 4 chunks of 64 KiB and one of 44 KiB + 5, each checksummed once, where it lies.
        const chunkSums = sums.mock.calls.filter(([, , chunk]) => chunkMemory.has(chunk.buffer));
        expect(chunkSums.map(([, , chunk]) => chunk.length)).toEqual([
          ...Array<number>(4).fill(64 * KiB),
          44 * KiB + 5,
        ]);
        expect(
          new Set(
            chunkSums.map(([, , chunk]) => `${chunk.byteOffset}@${[...chunkMemory].indexOf(chunk.buffer)}`),
          ).size,
        ).toBe(5);
      } finally {
        for (const spy of [set, copy, concat, from, slice, sums]) spy.mockRestore();
      }
      expect(Buffer.from(await client.readKey('vol1', 'bucket1', `once-${sizeKnown}`)).equals(data)).toBe(
        true,
      );
    },
  );

  it("use a chunk's buffer again once a watched PutBlock covers it, across keys, and keep every key's bytes", async () => {
    // 64 KiB chunks, a PutBlock every 128 KiB, at most 256 KiB unacknowledged (the client's config).
    const chunk = 64 * KiB;
    const keys = Array.from({ length: 6 }, (_, i) => contractKeyBytes(512 * KiB, 40 + i));
    const slow = jest.spyOn(Buffer, 'allocUnsafeSlow');
    const unsafe = jest.spyOn(Buffer, 'allocUnsafe');
    try {
      // Two writers at a time, so that buffers pass between keys written at once.
      for (let i = 0; i < keys.length; i += 2)
        await Promise.all(
          [i, i + 1].map((k) => client.writeKey('vol1', 'bucket1', `pooled-${k}`, keys[k] as Buffer)),
        );
      const chunkBuffers = [...slow.mock.calls, ...unsafe.mock.calls].filter(([size]) => size === chunk);
      // 48 chunks written: one new buffer each without reuse. With it, new buffers only for what
      // the two writers hold unacknowledged at once (at most 256 KiB each, the chunks being
      // filled and those whose PutBlock is being watched), then the free list's.
      expect(chunkBuffers.length).toBeGreaterThan(0);
      expect(chunkBuffers.length).toBeLessThanOrEqual(24);
    } finally {
      slow.mockRestore();
      unsafe.mockRestore();
    }
    for (const [k, data] of keys.entries())
      expect(Buffer.from(await client.readKey('vol1', 'bucket1', `pooled-${k}`)).equals(data)).toBe(true);
  });
});
