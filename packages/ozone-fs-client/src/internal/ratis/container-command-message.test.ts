import { describe, expect, it } from '@jest/globals';
import { OzoneInvalidArgumentError, OzoneProtocolError } from '../../ozone-errors.js';
import { putBlockRequest, streamInitRequest, writeChunkRequest, type BlockRef } from '../block-requests.js';
import { dn, uint64, type hadoop } from '../proto/wire.js';
import {
  decodeContainerCommandMessage,
  EncodedChunkList,
  encodeContainerCommandMessage,
  putBlockMessagePieces,
} from './container-command-message.js';

const block: BlockRef = { containerId: 7n, localId: 113750153625600001n, blockCommitSequenceId: 0n };
const chunk: hadoop.hdds.datanode.IChunkInfo = {
  chunkName: '113750153625600001_chunk_1',
  offset: uint64(0),
  len: uint64(5),
  checksumData: { type: dn.ChecksumType.NONE, bytesPerChecksum: 16384, checksums: [] },
};
const uuid = '9f0c54a1-3d67-4d7e-a0b2-6c1b7a1d2e3f';

describe('container-command message (Ratis content)', () => {
  it('carries WriteChunk data after a header that has none, behind the header length', () => {
    const data = Buffer.from('hello');
    const content = encodeContainerCommandMessage(writeChunkRequest(block, chunk, data, uuid));
    const headerLength = content.readUInt32BE(0);
    expect(content.length).toBe(4 + headerLength + data.length);
    expect(content.subarray(4 + headerLength).equals(data)).toBe(true);
    const header = dn.ContainerCommandRequestProto.decode(content.subarray(4, 4 + headerLength));
    expect(header.cmdType).toBe(dn.Type.WriteChunk);
    expect(Object.prototype.hasOwnProperty.call(header.writeChunk, 'data')).toBe(false);
    expect(header.writeChunk?.chunkData?.chunkName).toBe(chunk.chunkName);
  });

  it('round-trips WriteChunk and PutBlock, the data as a view of the content', () => {
    const data = Buffer.alloc(4096, 0xab);
    const content = encodeContainerCommandMessage(writeChunkRequest(block, chunk, data, uuid));
    const back = decodeContainerCommandMessage(content, 'test');
    expect(Buffer.from(back.writeChunk?.data ?? []).equals(data)).toBe(true);
    expect((back.writeChunk?.data as Uint8Array).buffer).toBe(content.buffer);
    expect(back.datanodeUuid).toBe(uuid);
    expect(back.version).toBe(3);

    const put = encodeContainerCommandMessage(putBlockRequest(block, [chunk], 5, true, uuid));
    expect(put.readUInt32BE(0)).toBe(put.length - 4); // no payload
    const decoded = decodeContainerCommandMessage(put, 'test');
    expect(decoded.putBlock?.eof).toBe(true);
    expect(decoded.putBlock?.blockData?.chunks?.[0]?.chunkName).toBe(chunk.chunkName);
  });

  it('leaves pipelineID out (a datanode fails the stream when it differs from the group)', () => {
    const content = encodeContainerCommandMessage({
      ...putBlockRequest(block, [], 0, true, uuid),
      pipelineID: 'not-the-group',
    });
    const header = dn.ContainerCommandRequestProto.decode(content.subarray(4));
    expect(Object.prototype.hasOwnProperty.call(header, 'pipelineID')).toBe(false);
  });

  it('fills version 3 when the sender left it out, as a datanode does', () => {
    const { version: _v, ...request } = putBlockRequest(block, [], 0, true, uuid);
    const back = decodeContainerCommandMessage(encodeContainerCommandMessage(request), 'test');
    expect(back.version).toBe(3);
  });

  it('refuses a WriteChunk without data before encoding it', () => {
    expect(() =>
      encodeContainerCommandMessage(writeChunkRequest(block, chunk, Buffer.alloc(0), uuid)),
    ).toThrow(OzoneInvalidArgumentError);
  });

  it('carries a StreamInit (a WriteChunk naming only the block) without a payload, as a stream header', () => {
    const content = encodeContainerCommandMessage(streamInitRequest({ ...block, encodedToken: 'tok' }, uuid));
    expect(content.readUInt32BE(0)).toBe(content.length - 4);
    const back = decodeContainerCommandMessage(content, 'test');
    expect(back.cmdType).toBe(dn.Type.StreamInit);
    expect(back.writeChunk?.blockID?.localID?.toString()).toBe(block.localId.toString());
    expect(back.writeChunk?.chunkData ?? null).toBeNull();
    expect(back.writeChunk?.data?.length ?? 0).toBe(0);
    expect(back.encodedToken).toBe('tok');
    expect(back.datanodeUuid).toBe(uuid);
  });

  it('says what is wrong with content that is not a container-command message', () => {
    const good = encodeContainerCommandMessage(writeChunkRequest(block, chunk, Buffer.from('hello'), uuid));
    const cases: Array<[string, Uint8Array, RegExp]> = [
      ['no prefix', Buffer.from([0, 1]), /no length prefix/],
      ['prefix past the end', Buffer.from([0, 0, 1, 0, 8, 1]), /says its header has 256 bytes, but 2 follow/],
      ['garbage header', Buffer.from([0, 0, 0, 3, 0xff, 0xff, 0xff]), /not a ContainerCommandRequestProto/],
      [
        'payload on a PutBlock',
        Buffer.concat([
          encodeContainerCommandMessage(putBlockRequest(block, [], 0, true, uuid)),
          Buffer.from('x'),
        ]),
        /a PutBlock message with a payload of 1 bytes/,
      ],
      ['truncated header', good.subarray(0, 10), /says its header has/],
    ];
    for (const [, content, message] of cases) {
      let thrown: unknown;
      try {
        decodeContainerCommandMessage(content, 'dn1');
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(OzoneProtocolError);
      expect((thrown as Error).message).toMatch(message);
    }
  });

  describe('a PutBlock from its chunk list encoded once', () => {
    /** A chunk of `windows` CRC32 checksums, named and placed as a block's `index`th chunk of 1 MiB. */
    const chunkOf = (index: number, windows: number, seed: number): hadoop.hdds.datanode.IChunkInfo => ({
      chunkName: `113750153625600001_chunk_${index + 1}`,
      offset: uint64(index * 1048576),
      len: uint64(windows * 16384),
      checksumData: {
        type: dn.ChecksumType.CRC32,
        bytesPerChecksum: 16384,
        checksums: Array.from({ length: windows }, (_, w) => {
          const crc = Buffer.alloc(4);
          crc.writeUInt32BE(((seed + 1) * 2654435761 + w * 40503) >>> 0, 0);
          return crc;
        }),
      },
    });

    it('gives the bytes encoding the whole request gives, for lists of every length and fields on both sides of putBlock', () => {
      for (const [count, windows] of [
        [0, 0],
        [1, 1],
        [3, 64],
        [40, 7],
        [300, 64],
      ] as const) {
        const list = new EncodedChunkList();
        const chunks = Array.from({ length: count }, (_, i) => chunkOf(i, windows, count));
        for (const c of chunks) list.append(c);
        expect(list.count).toBe(count);
        for (const eof of [false, true]) {
          const size = count * windows * 16384;
          const request = {
            ...putBlockRequest({ ...block, blockCommitSequenceId: 42n }, [], size, eof, uuid, [
              { key: 'ec', value: 'x' },
            ]),
            pipelineID: 'left-out',
            encodedToken: 'a-token-after-putBlock',
          };
          const putBlock = request.putBlock!;
          const whole = encodeContainerCommandMessage({
            ...request,
            putBlock: { ...putBlock, blockData: { ...putBlock.blockData, chunks } },
          });
          const pieces = putBlockMessagePieces(request, list);
          expect(Buffer.concat(pieces).equals(whole)).toBe(true);
          const decoded = decodeContainerCommandMessage(Buffer.concat(pieces), 'test');
          expect(decoded.putBlock?.blockData?.chunks).toHaveLength(count);
          expect(decoded.encodedToken).toBe('a-token-after-putBlock');
        }
      }
    });

    it('leaves a list view handed out as it was while more chunks are added', () => {
      const list = new EncodedChunkList();
      list.append(chunkOf(0, 64, 1));
      const before = list.bytes;
      const copy = Buffer.from(before);
      for (let i = 1; i < 100; i++) list.append(chunkOf(i, 64, 1));
      expect(before.equals(copy)).toBe(true);
      expect(list.bytes.subarray(0, copy.length).equals(copy)).toBe(true);
    });

    it('refuses a request that is not a PutBlock, or one that names chunks itself', () => {
      const list = new EncodedChunkList();
      expect(() =>
        putBlockMessagePieces(writeChunkRequest(block, chunk, Buffer.from('x'), uuid), list),
      ).toThrow(OzoneInvalidArgumentError);
      expect(() => putBlockMessagePieces(putBlockRequest(block, [chunk], 5, false, uuid), list)).toThrow(
        OzoneInvalidArgumentError,
      );
    });
  });
});
