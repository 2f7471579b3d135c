// fastpath's writes as one suite, run against every cluster: the embedded mini cluster and Ozone's
// own MiniOzoneCluster, whose datanodes take every block through its pipeline's Raft group. Keys
// of 0 B, 1 B, a chunk ± 1 B, the flush size ± 1 B, several blocks, a whole 256 MiB block and
// every checksum type; each read back byte for byte by fastpath (and by Ozone's Java client where
// the cluster has one), each block committed with a BCSID that every replica holds. Where the
// cluster has a Java side, a key it wrote and one fastpath wrote are listed and read alike by both.
// A follower, then the pipeline's leader, stopped mid-write: the key completes (on a new leader or
// in a new block) and every byte, acknowledged before the stop or written after it, reads back.
// When the adapter's client options turn Ratis streaming on (`dataStreamEnabled`), every key is
// streamed; a datanode stopped mid-stream breaks the stream, and the key then completes in a new
// block or fails without being committed (a pipeline of three has no member to spare).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_OZONE_CLIENT_CONFIG, type OzoneClient, type OzoneClientConfig } from '../../index.js';
import { CHECKSUM_TYPES } from './checksum-types.js';
import { contractKeyBytes } from './contract-key-bytes.js';
import { contractKeySha256, expectWrittenKey, type WrittenKey } from './expect-written-key.js';
import type {
  ContractKeySpec,
  OzoneClusterAdapter,
  OzoneContractCapabilities,
} from './ozone-cluster-adapter.js';
import { freshVolume, suiteClient } from './suite-client.js';
import { writeKeyWithFastpath } from './write-contract-key.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const BUCKET = 'writes';

/**
 * Ozone's client defaults, stated rather than inherited, so that the boundary keys sit on the
 * boundaries whatever the adapter's client options: 4 MiB chunks (`ozone.client.stream.buffer.size`),
 * a PutBlock every 16 MiB (`…flush.size`), writers held at 32 MiB unacknowledged (`…max.size`).
 */
const JAVA_DEFAULTS: Partial<OzoneClientConfig> = {
  chunkSizeBytes: 4 * MiB,
  flushSizeBytes: 16 * MiB,
  maxBufferSizeBytes: 32 * MiB,
  blockSizeBytes: 256 * MiB,
};
const CHUNK = 4 * MiB;
const FLUSH = 16 * MiB;
/** Whether the adapter's clients stream their keys (Ratis DataStream) rather than write them through the Raft log. */
function streaming(a: OzoneClusterAdapter): boolean {
  return a.clientOptions?.config?.dataStreamEnabled === true;
}

/** Small flushes and buffers: several PutBlocks (and watches) per block, and back-pressure. */
const SMALL_BUFFERS: Partial<OzoneClientConfig> = {
  flushSizeBytes: 512 * KiB,
  maxBufferSizeBytes: 512 * KiB,
  // The same for a client that streams (the adapter's options may turn streaming on).
  dataStreamPacketBytes: 256 * KiB,
  dataStreamFlushSizeBytes: 512 * KiB,
  dataStreamWindowBytes: 512 * KiB,
};
/**
 * For the stop tests: 1 MiB chunks, a PutBlock every 2 MiB and writers held at 4 MiB, so that the
 * 6th MiB is not handed over before the first 2 MiB are watched (acknowledged).
 */
const STOP_BUFFERS: Partial<OzoneClientConfig> = {
  chunkSizeBytes: MiB,
  flushSizeBytes: 2 * MiB,
  maxBufferSizeBytes: 4 * MiB,
  dataStreamPacketBytes: MiB,
  dataStreamFlushSizeBytes: 2 * MiB,
  dataStreamWindowBytes: 4 * MiB,
};

type WriteCase = Omit<ContractKeySpec, 'volume' | 'bucket'> & { smallBuffers?: boolean };

const writeCase = (c: Pick<WriteCase, 'key' | 'sizeBytes'> & Partial<WriteCase>): WriteCase => ({
  seed: c.key.length + c.sizeBytes,
  checksumType: 'CRC32',
  bytesPerChecksum: 16 * KiB,
  chunkSizeBytes: CHUNK,
  blockSizeBytes: 256 * MiB,
  replication: 'THREE',
  ...c,
});

const SIZES: readonly WriteCase[] = [
  writeCase({ key: 'zero', sizeBytes: 0 }),
  writeCase({ key: 'one-byte', sizeBytes: 1 }),
  writeCase({ key: 'chunk-minus-one', sizeBytes: CHUNK - 1 }),
  writeCase({ key: 'chunk', sizeBytes: CHUNK }),
  writeCase({ key: 'chunk-plus-one', sizeBytes: CHUNK + 1 }),
  // Around the flush size: a PutBlock and its watch mid-block (then the one at close).
  writeCase({ key: 'flush-minus-one', sizeBytes: FLUSH - 1 }),
  writeCase({ key: 'flush', sizeBytes: FLUSH }),
  writeCase({ key: 'flush-plus-one', sizeBytes: FLUSH + 1 }),
  writeCase({ key: 'ratis-one', sizeBytes: MiB + 3, replication: 'ONE' }),
];

/**
 * Registers the write suite. Call it inside a `describe` whose `beforeAll` starts the cluster;
 * `adapter()` is called after that. Its keys go into a fresh volume of its own. The stop tests come
 * last and start each datanode again, but a cluster that must not see a datanode stopped should run
 * this suite after its other tests.
 *
 * @example
 * ```ts
 * describe('embedded mini cluster', () => {
 *   let cluster: MiniOzoneCluster;
 *   beforeAll(async () => (cluster = await startMiniOzoneCluster({ ratisWatchTimeoutMs: 1000 })));
 *   afterAll(() => cluster.close());
 *   describeOzoneWrites(() => miniClusterAdapter(cluster), MINI_CLUSTER_CAPABILITIES);
 * });
 * ```
 */
export function describeOzoneWrites(
  adapter: () => OzoneClusterAdapter,
  capabilities: OzoneContractCapabilities,
): void {
  let volume = '';
  let client: OzoneClient;
  let small: OzoneClient;

  beforeAll(async () => {
    client = suiteClient(adapter(), JAVA_DEFAULTS);
    small = suiteClient(adapter(), { ...JAVA_DEFAULTS, ...SMALL_BUFFERS });
    volume = await freshVolume(client, 'wr', BUCKET);
  });
  afterAll(() => {
    client?.close();
    small?.close();
  });

  /** Writes `c` with fastpath (in pieces of `pieceBytes`), then runs every check of it. */
  async function writeAndCheck(c: WriteCase, pieceBytes?: number): Promise<WrittenKey> {
    const spec: ContractKeySpec = { volume, bucket: BUCKET, ...c };
    await writeKeyWithFastpath(c.smallBuffers ? small : client, spec, pieceBytes);
    const written: WrittenKey = {
      volume,
      bucket: BUCKET,
      key: c.key,
      sizeBytes: c.sizeBytes,
      seed: c.seed,
      replicas: c.replication === 'ONE' ? 1 : 3,
      checksummed: c.checksumType !== 'NONE',
    };
    await expectWrittenKey(adapter(), client, written);
    return written;
  }

  describe('keys of every size are committed through Ratis and read back', () => {
    it.each(SIZES.map((c) => [c.key, c.sizeBytes, c] as const))(
      '%s (%d B)',
      async (_name, _size, c) => {
        await writeAndCheck(c);
      },
      180_000,
    );

    it('several blocks (1 MiB blocks of 256 KiB chunks), each with its own BCSID', async () => {
      const c = writeCase({
        key: 'four-blocks',
        sizeBytes: 3 * MiB + 5,
        blockSizeBytes: MiB,
        chunkSizeBytes: 256 * KiB,
        smallBuffers: true,
      });
      await writeAndCheck(c);
      const details = await client.getKeyInfo(volume, BUCKET, c.key);
      expect(details.blocks.map((b) => b.lengthBytes)).toEqual([MiB, MiB, MiB, 5]);
      expect(details.blocks.map((b) => b.offsetInKey)).toEqual([0, MiB, 2 * MiB, 3 * MiB]);
    });

    it('a key written in 100003 B pieces across chunk and flush boundaries', async () => {
      await writeAndCheck(
        writeCase({
          key: 'pieces',
          sizeBytes: 2 * MiB + 7,
          chunkSizeBytes: 256 * KiB,
          blockSizeBytes: 4 * MiB,
          smallBuffers: true,
        }),
        100_003,
      );
    });

    it.each(CHECKSUM_TYPES)(
      'every checksum type: %s, 2 chunks + 1 B at 16 KiB per checksum',
      async (checksumType) => {
        await writeAndCheck(
          writeCase({
            key: `checksum-${checksumType}`,
            sizeBytes: 2 * 256 * KiB + 1,
            chunkSizeBytes: 256 * KiB,
            checksumType,
          }),
        );
      },
      120_000,
    );

    if (capabilities.wholeBlockWrites ?? true)
      it('a whole 256 MiB block: 16 flushes, writers held at the 32 MiB buffer limit', async () => {
        await writeAndCheck(writeCase({ key: 'block-256-mib', sizeBytes: 256 * MiB }));
      }, 900_000);
  });

  if (capabilities.javaClient) {
    it('a Java-written and a fastpath-written key are listed and read alike by both clients', async () => {
      const a = adapter();
      const byJava = writeCase({ key: 'mixed/by-java', sizeBytes: 300_001, seed: 51 });
      const byFastpath = writeCase({ key: 'mixed/by-fastpath', sizeBytes: 300_002, seed: 52 });
      await a.writeKey?.({ volume, bucket: BUCKET, ...byJava });
      await writeKeyWithFastpath(client, { volume, bucket: BUCKET, ...byFastpath });
      const expected = [
        { name: byFastpath.key, sizeBytes: byFastpath.sizeBytes },
        { name: byJava.key, sizeBytes: byJava.sizeBytes },
      ];
      // Files only (a file-system bucket lists the directory 'mixed/' too), by name.
      const files = (keys: ReadonlyArray<{ name: string; sizeBytes: number }>) =>
        keys
          .filter((k) => !k.name.endsWith('/'))
          .map((k) => ({ name: k.name, sizeBytes: k.sizeBytes }))
          .sort((x, y) => x.name.localeCompare(y.name));
      expect(files((await a.listKeysWithJava?.(volume, BUCKET, 'mixed/')) ?? [])).toEqual(expected);
      // fastpath lists a directory as Ozone's file system does (ListStatus).
      const listed = await client.listStatus(volume, BUCKET, 'mixed');
      expect(files(listed.map((st) => ({ name: st.keyName, sizeBytes: st.sizeBytes })))).toEqual(expected);
      for (const c of [byJava, byFastpath]) {
        expect(await a.readKeyWithJava?.(volume, BUCKET, c.key)).toEqual({
          bytesRead: c.sizeBytes,
          sha256: contractKeySha256(c.sizeBytes, c.seed),
        });
        const data = await client.readKey(volume, BUCKET, c.key, { verifyChecksum: true });
        expect(data.equals(contractKeyBytes(c.sizeBytes, c.seed))).toBe(true);
      }
    });
  }

  if (capabilities.stopDatanode) {
    describe('a datanode of the pipeline stopped mid-write', () => {
      /**
       * Writes 10 MiB + 9 B with a fresh client (so its only pipeline is this key's), stops the
       * member `which` picks once 6 MiB are handed over (and at least 2 MiB acknowledged, so the
       * client's leader is the one that answered), writes the rest and closes; then checks every
       * byte with the stopped datanode still down, and starts it again.
       */
      async function stopMidWrite(
        key: string,
        which: (pipeline: { leaderId: string; memberIds: string[] }) => string,
      ): Promise<{ stopped: string; leaderAfter: string | undefined; failed: boolean }> {
        const a = adapter();
        const writer = suiteClient(a, STOP_BUFFERS);
        const c = writeCase({ key, sizeBytes: 10 * MiB + 9, chunkSizeBytes: MiB });
        const out = await writer.createKey(volume, BUCKET, key, {
          sizeBytes: c.sizeBytes,
          chunkSizeBytes: c.chunkSizeBytes,
          replication: 'THREE',
        });
        const piece = (at: number) => contractKeyBytes(Math.min(MiB, c.sizeBytes - at), c.seed, at);
        const beforeStop = 6 * MiB;
        for (let at = 0; at < beforeStop; at += MiB) await out.write(piece(at));
        const pipelines = writer.writePipelines;
        // A write to a member still coming back from the previous stop test (streamed, or async
        // on a cluster whose pipeline the earlier stops closed) may already have failed over to a
        // new block on another pipeline: the one the key writes to now is the last the client took up.
        expect(pipelines.length).toBeGreaterThanOrEqual(1);
        const pipeline = pipelines[pipelines.length - 1] as (typeof pipelines)[number];
        expect(pipeline.memberIds).toHaveLength(3);
        expect(pipeline.memberIds).toContain(pipeline.leaderId);
        // Its Ratis streams took the session the adapter's clients were given.
        expect(pipeline.session).toBe(
          a.clientOptions?.config?.ratisGrpcChannel ?? DEFAULT_OZONE_CLIENT_CONFIG.ratisGrpcChannel,
        );
        const stopped = which(pipeline);
        const restart = await (a.stopDatanode as NonNullable<OzoneClusterAdapter['stopDatanode']>)(stopped);
        try {
          const finished = (async () => {
            for (let at = beforeStop; at < c.sizeBytes; at += MiB) await out.write(piece(at));
            await out.close();
          })();
          if (streaming(a)) {
            const failure = await finished.then(
              () => undefined,
              (error: unknown) => error,
            );
            if (failure !== undefined) {
              // A broken stream with nowhere to go: the key is never committed.
              expect(failure).toBeInstanceOf(Error);
              const listed = await writer.listKeys(volume, BUCKET, { prefix: key });
              expect(listed.filter((k) => k.name === key)).toEqual([]);
              return { stopped, leaderAfter: undefined, failed: true };
            }
          } else {
            await finished;
          }
          await expectWrittenKey(
            a,
            writer,
            { volume, bucket: BUCKET, key, sizeBytes: c.sizeBytes, seed: c.seed, replicas: 3 },
            { down: [stopped], replicasAtLeast: true },
          );
          const leaderAfter = writer.writePipelines.find(
            (p) => p.pipelineId === pipeline.pipelineId,
          )?.leaderId;
          return { stopped, leaderAfter, failed: false };
        } finally {
          await restart();
          writer.close();
        }
      }

      it('a follower: the key completes and every byte reads back', async () => {
        await stopMidWrite('follower-stopped', (p) => p.memberIds.find((id) => id !== p.leaderId) as string);
      }, 600_000);

      it("the pipeline's leader: the key completes on a new leader or in a new block, and nothing acknowledged is lost", async () => {
        const { stopped, leaderAfter, failed } = await stopMidWrite('leader-stopped', (p) => p.leaderId);
        if (failed) return;
        const details = await client.getKeyInfo(volume, BUCKET, 'leader-stopped');
        const newBlock = details.blocks.some((b) => !b.datanodes.some((d) => d.uuid === stopped));
        expect({ newLeader: leaderAfter !== undefined && leaderAfter !== stopped, newBlock }).not.toEqual({
          newLeader: false,
          newBlock: false,
        });
      }, 600_000);
    });
  }
}
