// fastpath's HTTP/2 transports assemble answers in buffers that are handed back and reused once their
// bytes are copied out (see receive-buffer-pool.ts). What must hold on the embedded cluster: the
// bytes are right across piece, chunk and block boundaries whatever order reads come in, and no
// Buffer a reader was given, no widened window the stream keeps and no ReadBlock piece held for a
// later read is a view of memory a later answer is assembled in.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import {
  contractKeyBytes,
  startMiniOzoneCluster,
  type MiniOzoneCluster,
} from '@fastpath/ozone-fs-client/testing';

const KiB = 1024;
const MiB = 1024 * KiB;
/** Three blocks of four 1 MiB chunks, the last block short and ending mid-window. */
const SIZE = 10 * MiB + 5 * KiB + 3;

describe('reused receive buffers on the embedded mini cluster', () => {
  let cluster: MiniOzoneCluster;
  const content = contractKeyBytes(SIZE, 91);
  const other = contractKeyBytes(SIZE, 92);

  beforeAll(async () => {
    cluster = await startMiniOzoneCluster({ datanodes: 3 });
    const writer = createOzoneClient({ omAddress: cluster.omAddress, userName: 'pool' });
    try {
      await writer.createVolume('pool');
      await writer.createBucket('pool', 'bucket');
      for (const [key, data, bytesPerChecksum] of [
        ['k', content, 16 * KiB],
        ['other', other, 16 * KiB],
        // One window per chunk: a widened read is one part, and the stream keeps a view of it.
        ['wide', content, MiB],
      ] as const) {
        const out = await writer.createKey('pool', 'bucket', key, {
          chunkSizeBytes: MiB,
          blockSizeBytes: 4 * MiB,
          bytesPerChecksum,
        });
        await out.write(data);
        await out.close();
      }
    } finally {
      writer.close();
    }
  });
  afterAll(async () => {
    await cluster?.close();
  });

  // Both of fastpath's own sessions: Node's http2 assembles an answer cut across DATA pieces in a
  // pooled buffer; the socket session copies every answer of 64 KiB or more into one.
  describe.each(['http2-stream-pool', 'socket-stream-pool'] as const)('over %s', (transport) => {
    it("a sequential reader's read-ahead windows hand their answers back: a few buffers for the whole key, not one per MiB", async () => {
      const client = createOzoneClient({
        omAddress: cluster.omAddress,
        userName: 'pool',
        // 16 KiB DATA frames: every answer spans many pieces and is assembled in a pooled buffer.
        config: { datanodeTransport: transport, datanodeHttp2MaxFrameBytes: 16 * KiB },
      });
      const stream = await client.openKey('pool', 'bucket', 'k');
      const allocations = jest.spyOn(Buffer, 'allocUnsafeSlow');
      try {
        const target = Buffer.alloc(64 * KiB);
        for (let at = 0; at < SIZE;) {
          const n = await stream.read(at, target, 0, Math.min(target.length, SIZE - at));
          expect(target.subarray(0, n).equals(content.subarray(at, at + n))).toBe(true);
          at += n;
        }
        // Ten chunks of 1 MiB, each read ahead into a window (about 1 MiB) after its first read.
        expect(stream.stats.readChunkCalls).toBeLessThanOrEqual(21);
        expect(stream.stats.bytesFromCache).toBeGreaterThan(8 * MiB);
        // Answers of 512 KiB or more come from the pool: each window's answer went back when the
        // window was read to its end (without that: one new buffer per window, ten or more).
        const large = allocations.mock.calls.filter(([n]) => n >= 512 * KiB).length;
        expect(large).toBeLessThanOrEqual(3);
      } finally {
        allocations.mockRestore();
        stream.close();
        client.close();
      }
    });

    it('a streaming ReadBlock reader hands its pieces back: a few buffers for the whole key, not one per piece', async () => {
      const client = createOzoneClient({
        omAddress: cluster.omAddress,
        userName: 'pool',
        config: {
          datanodeTransport: transport,
          streamReadBlockEnabled: true,
          // 256 KiB pieces in 16 KiB frames: each is assembled in a pooled buffer on either session.
          streamReadResponseDataSizeBytes: 256 * KiB,
          streamReadPreReadSizeBytes: 2 * MiB,
          datanodeHttp2MaxFrameBytes: 16 * KiB,
        },
      });
      const stream = await client.openKey('pool', 'bucket', 'k');
      const allocations = jest.spyOn(Buffer, 'allocUnsafeSlow');
      try {
        const target = Buffer.alloc(64 * KiB);
        for (let at = 0; at < SIZE;) {
          const n = await stream.read(at, target, 0, Math.min(target.length, SIZE - at));
          expect(target.subarray(0, n).equals(content.subarray(at, at + n))).toBe(true);
          at += n;
        }
        expect(stream.stats.readBlockCalls).toBeGreaterThan(0);
        expect(stream.stats.readBlockPieces).toBeGreaterThanOrEqual(40);
        // About 40 pieces of 256 KiB; the reader holds at most the pre-read (2 MiB) and those in
        // flight at once, so the pool's buffers are taken again (without the hand-back: one per piece).
        const large = allocations.mock.calls.filter(([n]) => n >= 192 * KiB).length;
        expect(large).toBeLessThanOrEqual(16);
      } finally {
        allocations.mockRestore();
        stream.close();
        client.close();
      }
    });

    describe.each([
      ['ReadChunk', false],
      ['streaming ReadBlock', true],
    ])('%s', (_name, streamReadBlockEnabled) => {
      let client: OzoneClient;
      beforeAll(() => {
        client = createOzoneClient({
          omAddress: cluster.omAddress,
          userName: 'pool',
          config: {
            datanodeTransport: transport,
            streamReadBlockEnabled,
            // Small pieces: many answers and many reuses in a 10 MiB key.
            streamReadResponseDataSizeBytes: 256 * KiB,
            streamReadPreReadSizeBytes: 2 * MiB,
          },
        });
      });
      afterAll(() => client?.close());

      it.each([true, false])(
        'sequential reads of odd sizes are right across pieces, chunks and blocks (verify %s)',
        async (verifyChecksum) => {
          const stream = await client.openKey('pool', 'bucket', 'k', { verifyChecksum });
          try {
            const target = Buffer.alloc(300 * KiB + 7);
            let at = 0;
            for (;;) {
              const n = await stream.read(at, target, 0, target.length);
              if (n === 0) break;
              expect(target.subarray(0, n).equals(content.subarray(at, at + n))).toBe(true);
              at += n;
            }
            expect(at).toBe(SIZE);
          } finally {
            stream.close();
          }
        },
      );

      it('no Buffer handed to a reader changes after later reads', async () => {
        const stream = await client.openKey('pool', 'bucket', 'k');
        const given: { at: number; data: Buffer }[] = [];
        try {
          for (let at = 0; at < SIZE; at += 700 * KiB) {
            const length = Math.min(700 * KiB, SIZE - at);
            given.push({ at, data: await stream.readFully(at, length) });
          }
        } finally {
          stream.close();
        }
        for (const { at, data } of given)
          expect(data.equals(content.subarray(at, at + data.length))).toBe(true);
      });

      it('what a stream keeps for its next read (a widened window, pre-read pieces) survives other reads', async () => {
        const kept = await client.openKey('pool', 'bucket', streamReadBlockEnabled ? 'k' : 'wide');
        const busy = await client.openKey('pool', 'bucket', 'other');
        try {
          // Off the window boundaries: ReadChunk keeps the rest of the widened window; ReadBlock
          // keeps the stream with the pieces past the read.
          const head = Buffer.alloc(100 * KiB + 5);
          await kept.read(0, head, 0, head.length);
          expect(head.equals(content.subarray(0, head.length))).toBe(true);
          // Every other answer meanwhile is assembled in reused memory.
          const scratch = Buffer.alloc(MiB);
          for (let at = 0; at < SIZE; at += scratch.length) {
            const n = await busy.read(at, scratch, 0, scratch.length);
            expect(scratch.subarray(0, n).equals(other.subarray(at, at + n))).toBe(true);
          }
          // ReadChunk: the rest of the widened window (the chunk), served from it; ReadBlock: the pieces held.
          const rest = Buffer.alloc(MiB - head.length);
          await kept.read(head.length, rest, 0, rest.length);
          expect(rest.equals(content.subarray(head.length, head.length + rest.length))).toBe(true);
          if (streamReadBlockEnabled) expect(kept.stats.readBlockCalls).toBe(1);
          else expect(kept.stats.bytesFromCache).toBeGreaterThan(0);
        } finally {
          kept.close();
          busy.close();
        }
      });
    });
  });
});
