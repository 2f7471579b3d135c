// Streaming ReadBlock on the embedded mini cluster, whose datanodes answer it as Ozone 2.2.0's do,
// down to the behaviours a client must steer around (an offset at the block's end gets no answer
// at all; a stream keeps the block file its first ReadBlock opened).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
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
