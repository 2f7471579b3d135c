// Streaming ReadBlock on the embedded mini cluster, whose datanodes answer it as Ozone 2.2.0's do:
// the shared ReadBlock suite over grpc-js and over fastpath's own HTTP/2 session, then what only
// the embedded cluster can show: a datanode that stalls mid-stream, and the 2.2.0 behaviours the
// client must steer around (an offset at the block's end gets no answer at all; a stream keeps
// the block file its first ReadBlock opened).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import {
  contractKeyBytes,
  describeReadBlockReads,
  MINI_CLUSTER_CAPABILITIES,
  miniClusterAdapter,
  withDatanodeTransport,
} from '@fastpath/ozone-fs-client/testing/contract';
import { encodeRequest, getBlockRequest, readBlockRequest } from '../src/internal/block-requests.js';
import { DATANODE_SEND_PATH } from '../src/internal/grpc/datanode-channel.js';
import {
  decodeContainerAnswer,
  type ContainerAnswer,
} from '../src/internal/proto/decode-container-answer.js';
import { dn } from '../src/internal/proto/wire.js';

const MiB = 1024 * 1024;

describe('streaming ReadBlock on the embedded mini cluster', () => {
  let cluster: MiniOzoneCluster;
  beforeAll(async () => {
    cluster = await startMiniOzoneCluster({ datanodes: 3 });
  });
  afterAll(async () => {
    await cluster?.close();
  });

  describe.each(['stream-pool', 'http2-stream-pool', 'socket-stream-pool'] as const)(
    'the ReadBlock suite over %s',
    (transport) => {
      describeReadBlockReads(
        withDatanodeTransport(() => miniClusterAdapter(cluster), transport),
        MINI_CLUSTER_CAPABILITIES,
      );
    },
  );

  it('no read of the suites asked a datanode for an offset at or past a block end', () => {
    const pastEnd = cluster.counters().reduce((n, c) => n + c.readBlockPastEnd, 0);
    const pieces = cluster.counters().reduce((n, c) => n + c.readBlockPieces, 0);
    expect(pieces).toBeGreaterThan(0);
    expect(pastEnd).toBe(0);
  });

  describe('a datanode that stalls mid-stream', () => {
    let client: OzoneClient;
    beforeAll(async () => {
      client = createOzoneClient({
        omAddress: cluster.omAddress,
        userName: 'stall',
        config: { streamReadBlockEnabled: true, streamReadTimeoutMs: 1_000, readRetryIntervalMs: 0 },
      });
      await client.createVolume('rbstall');
      await client.createBucket('rbstall', 'bucket');
      const out = await client.createKey('rbstall', 'bucket', 'k', {
        chunkSizeBytes: MiB,
        blockSizeBytes: 4 * MiB,
      });
      await out.write(contractKeyBytes(3 * MiB, 71));
      await out.close();
    });
    afterAll(() => client?.close());

    it('fails that stream with DEADLINE_EXCEEDED after ozone.client.stream.read.timeout and reads from the next replica', async () => {
      const first = cluster.om.blockAt('rbstall', 'bucket', 'k', 0).datanodes[0] as string;
      cluster.injectFault(first, { command: 'ReadBlock', response: 'stall', times: 1 });
      const stream = await client.openKey('rbstall', 'bucket', 'k');
      try {
        const got = Buffer.alloc(3 * MiB);
        await stream.read(0, got, 0, got.length);
        expect(got.equals(contractKeyBytes(3 * MiB, 71))).toBe(true);
        expect(stream.stats).toMatchObject({ failovers: 1, readBlockCalls: 2, readChunkCalls: 0 });
      } finally {
        stream.close();
      }
    });

    it('every replica stalling: the read fails with a typed error whose attempts are the deadlines', async () => {
      const solo = createOzoneClient({
        omAddress: cluster.omAddress,
        userName: 'stall',
        config: {
          streamReadBlockEnabled: true,
          streamReadTimeoutMs: 500,
          readRetryIntervalMs: 0,
          readMaxRetries: 0,
        },
      });
      try {
        for (const d of cluster.datanodes)
          cluster.injectFault(d.uuid, { command: 'ReadBlock', response: 'stall', times: 1 });
        const stream = await solo.openKey('rbstall', 'bucket', 'k');
        const err = await stream.read(0, Buffer.alloc(3 * MiB), 0, 3 * MiB).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: 'ERR_OZONE_REPLICAS_EXHAUSTED' });
        const attempts = (err as { attempts: readonly { code: string }[] }).attempts;
        expect(attempts.map((a) => a.code)).toEqual([
          'ERR_OZONE_DEADLINE_EXCEEDED',
          'ERR_OZONE_DEADLINE_EXCEEDED',
          'ERR_OZONE_DEADLINE_EXCEEDED',
        ]);
        stream.close();
      } finally {
        solo.close();
      }
    });
  });

  describe("the 2.2.0 datanode's ReadBlock, as the embedded datanode reproduces it", () => {
    let client: OzoneClient;
    let raw: Client;
    let blocks: Array<{
      containerId: bigint;
      localId: bigint;
      blockCommitSequenceId: bigint;
      lengthBytes: number;
    }>;
    let datanode: { uuid: string; address: string };
    beforeAll(async () => {
      client = createOzoneClient({ omAddress: cluster.omAddress, userName: 'raw' });
      await client.createVolume('rbraw');
      await client.createBucket('rbraw', 'bucket');
      const out = await client.createKey('rbraw', 'bucket', 'k', {
        chunkSizeBytes: MiB,
        blockSizeBytes: MiB,
        replication: 'ONE',
      });
      await out.write(contractKeyBytes(2 * MiB, 72));
      await out.close();
      const info = await client.getKeyInfo('rbraw', 'bucket', 'k');
      blocks = info.blocks.map((b) => ({ ...b, lengthBytes: b.lengthBytes }));
      const d = info.blocks[0]?.datanodes[0];
      if (!d) throw new Error('the key has no replica');
      datanode = d;
      raw = new Client(datanode.address, credentials.createInsecure());
    });
    afterAll(() => {
      raw?.close();
      client?.close();
    });

    /** Sends requests on one raw `send` stream and collects the first `count` answers. */
    function exchange(requests: Buffer[], count: number): Promise<ContainerAnswer[]> {
      return new Promise((resolve, reject) => {
        const answers: ContainerAnswer[] = [];
        const call = raw.makeBidiStreamRequest<Buffer, Buffer>(
          DATANODE_SEND_PATH,
          (b) => b,
          (b) => b,
          new Metadata(),
        );
        call.on('data', (m: Buffer) => {
          answers.push(decodeContainerAnswer(m, datanode.address));
          if (answers.length === count) {
            resolve(answers);
            call.end();
          }
        });
        call.on('error', (e: Error) => {
          if (answers.length < count) reject(e);
        });
        for (const r of requests) call.write(r);
      });
    }

    it('an offset at the block end is answered with nothing (the GetBlock sent after it is the first answer)', async () => {
      const block = blocks[0]!;
      const before = cluster.datanode(datanode.uuid).counters.readBlockPastEnd;
      const [answer] = await exchange(
        [
          encodeRequest(readBlockRequest(block, block.lengthBytes, 1, 65_536, datanode.uuid)),
          encodeRequest(getBlockRequest(block, datanode.uuid)),
        ],
        1,
      );
      expect(answer?.cmdType).toBe(dn.Type.GetBlock);
      expect(cluster.datanode(datanode.uuid).counters.readBlockPastEnd).toBe(before + 1);
    });

    it("a second ReadBlock on the same stream reads the first block's file, whatever block it names", async () => {
      const [a, b] = blocks as [(typeof blocks)[0], (typeof blocks)[0]];
      const answers = await exchange(
        [
          encodeRequest(readBlockRequest(a, 0, 65_536, 65_536, datanode.uuid)),
          encodeRequest(readBlockRequest(b, 0, 65_536, 65_536, datanode.uuid)),
        ],
        2,
      );
      const first = contractKeyBytes(65_536, 72, 0);
      expect(answers.map((x) => x.readBlock?.offset)).toEqual([0, 0]);
      expect(answers[0]?.readBlock?.data.equals(first)).toBe(true);
      // Block b's bytes are at 1 MiB of the key; the stream still holds block a's file.
      expect(answers[1]?.readBlock?.data.equals(first)).toBe(true);
      expect(answers[1]?.readBlock?.data.equals(contractKeyBytes(65_536, 72, MiB))).toBe(false);
    });
  });
});
