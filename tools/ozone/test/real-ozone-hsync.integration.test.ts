// hflush()/hsync() of fastpath's ofs output stream against Apache Ozone 2.2.0's own
// MiniOzoneCluster with the OM's hsync settings on (ozone.hbase.enhancements.allowed,
// ozone.fs.hsync.enabled): after each hsync, Ozone's own Java reader and fastpath's reader see
// every byte written so far of the still-open file, and the OM (asked from the Java side) lists
// the key with that length and the writer's hsyncClientId; close() commits the final length and
// drops the mark. With the client's settings off, the calls are a plain flush: the OM never hears
// of the file until close(). One cluster for the file.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FileNotFoundError, newFileSystemInstance, type OzoneFileSystem } from '@fastpath/ozone-fs-client';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { startRealOzoneCluster, type RealOzoneCluster } from '@fastpath/ozone-fixture';

jest.setTimeout(600_000);

const VOLUME = 'hsyncvol';
const BUCKET = 'wal';
const KiB = 1024;
const MiB = 1024 * KiB;
// Small chunks and blocks (the client cuts blocks at its ozone.scm.block.size): an hsync lands
// mid-chunk, and a file crosses a block boundary between two hsyncs.
const SMALL = Object.freeze({
  'ozone.client.stream.buffer.size': '256KB',
  'ozone.scm.block.size': '1MB',
});
const HSYNC_ON = Object.freeze({
  'ozone.client.hbase.enhancements.allowed': 'true',
  'ozone.fs.hsync.enabled': 'true',
});

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('hsync against Apache Ozone 2.2.0 (MiniOzoneCluster, OM hsync settings on)', () => {
  let cluster: RealOzoneCluster;
  let uri: string;
  let reader: OzoneFileSystem;

  beforeAll(async () => {
    cluster = await startRealOzoneCluster({
      datanodes: 3,
      configuration: { 'ozone.hbase.enhancements.allowed': 'true', 'ozone.fs.hsync.enabled': 'true' },
    });
    uri = `ofs://${cluster.omGrpcAddress}`;
    reader = newFileSystemInstance(uri, { userName: 'hbase', properties: SMALL });
    await reader.mkdirs(`/${VOLUME}/${BUCKET}`);
  });

  afterAll(async () => {
    reader?.close();
    await cluster?.stop();
  });

  /** What fastpath's reader and Ozone's Java reader see of the file now; both must see `expected`. */
  async function expectReadersSee(key: string, expected: Buffer): Promise<void> {
    const path = `/${VOLUME}/${BUCKET}/${key}`;
    const status = await reader.getFileStatus(path);
    expect(status.length).toBe(expected.length);
    const stream = await reader.open(path);
    try {
      const bytes = Buffer.alloc(expected.length);
      if (bytes.length > 0) await stream.readFully(0, bytes);
      expect(bytes.equals(expected)).toBe(true);
    } finally {
      stream.close();
    }
    expect(await cluster.readKeyWithJava(VOLUME, BUCKET, key)).toEqual({
      bytesRead: expected.length,
      sha256: sha256(expected),
    });
  }

  it("shows each hsync'ed prefix of the open file to Ozone's Java reader and to fastpath's, then the whole file once closed", async () => {
    const writer = newFileSystemInstance(uri, { userName: 'hbase', properties: { ...SMALL, ...HSYNC_ON } });
    const data = contractKeyBytes(MiB + 300 * KiB + 9, 51);
    const key = 'wal.1';
    try {
      const out = await writer.create(`/${VOLUME}/${BUCKET}/${key}`);
      expect(out.hasCapability('hsync')).toBe(true);

      await out.write(data.subarray(0, 300 * KiB + 5));
      await out.hsync();
      const first = await cluster.lookupKey(VOLUME, BUCKET, key);
      expect(first).toMatchObject({ found: true, dataSize: 300 * KiB + 5 });
      const hsyncClientId = first.found ? first.metadata['hsyncClientId'] : undefined;
      expect(hsyncClientId).toMatch(/^-?\d+$/);
      await expectReadersSee(key, data.subarray(0, 300 * KiB + 5));

      // Past the first 1 MiB block: hflush is hsync; the OM lists both blocks.
      await out.write(data.subarray(300 * KiB + 5, MiB + 200 * KiB));
      await out.hflush();
      const second = await cluster.lookupKey(VOLUME, BUCKET, key);
      expect(second).toMatchObject({ found: true, dataSize: MiB + 200 * KiB });
      if (second.found) {
        expect(second.metadata['hsyncClientId']).toBe(hsyncClientId);
        expect(second.blocks.map((b) => b.lengthBytes)).toEqual([MiB, 200 * KiB]);
        expect(second.blocks.every((b) => b.blockCommitSequenceId > 0n)).toBe(true);
      }
      await expectReadersSee(key, data.subarray(0, MiB + 200 * KiB));

      // Written, not synced: the readers still see the last hsync.
      await out.write(data.subarray(MiB + 200 * KiB));
      await expectReadersSee(key, data.subarray(0, MiB + 200 * KiB));

      await out.close();
      const closed = await cluster.lookupKey(VOLUME, BUCKET, key);
      expect(closed).toMatchObject({ found: true, dataSize: data.length });
      if (closed.found) expect(closed.metadata['hsyncClientId']).toBeUndefined();
      await expectReadersSee(key, data);
    } finally {
      writer.close();
    }
  });

  it('is a plain flush with the client settings off: the OM hears of the file only at close()', async () => {
    const writer = newFileSystemInstance(uri, { userName: 'hbase', properties: SMALL });
    const data = contractKeyBytes(600 * KiB + 1, 52);
    const key = 'wal.off';
    try {
      const out = await writer.create(`/${VOLUME}/${BUCKET}/${key}`);
      expect(out.hasCapability('hsync')).toBe(false);
      await out.write(data.subarray(0, 400 * KiB));
      await out.hsync();
      await out.hflush();
      expect(await cluster.lookupKey(VOLUME, BUCKET, key)).toEqual({ found: false });
      await expect(reader.getFileStatus(`/${VOLUME}/${BUCKET}/${key}`)).rejects.toBeInstanceOf(
        FileNotFoundError,
      );
      await out.write(data.subarray(400 * KiB));
      await out.close();
      await expectReadersSee(key, data);
    } finally {
      writer.close();
    }
  });
});
