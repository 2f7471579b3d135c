// hflush()/hsync() on the embedded cluster, as Ozone 2.2.0 defines them: off by default, where they
// are a plain flush() and a new file stays invisible until close(); on (both client settings and
// both OM settings), where each hsync makes every byte written so far visible to readers that open
// the still-open file, later writes and hsyncs extend it, and close() commits the final length.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createOzoneClient,
  FileNotFoundError,
  newFileSystemInstance,
  type OzoneClient,
  type OzoneFileSystem,
} from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';

const KiB = 1024;
const HSYNC_ON = Object.freeze({
  'ozone.client.hbase.enhancements.allowed': 'true',
  'ozone.fs.hsync.enabled': 'true',
});
const OM_HSYNC_ON = Object.freeze({
  'ozone.hbase.enhancements.allowed': 'true',
  'ozone.fs.hsync.enabled': 'true',
});
// Small chunks and blocks: an hsync lands mid-chunk, and a file crosses blocks.
const SMALL = Object.freeze({
  'ozone.client.stream.buffer.size': '64KB',
  'ozone.client.stream.buffer.flush.size': '128KB',
  'ozone.client.stream.buffer.max.size': '256KB',
  'ozone.scm.block.size': '256KB',
});

function fileSystem(
  cluster: MiniOzoneCluster,
  properties: Readonly<Record<string, string>>,
): OzoneFileSystem {
  return newFileSystemInstance(`ofs://${cluster.omAddress}`, {
    userName: 'hbase',
    properties: { ...SMALL, ...properties },
  });
}

/** What a reader that opens the file now sees: its length and its bytes. */
async function readNow(fs: OzoneFileSystem, path: string): Promise<Buffer> {
  const status = await fs.getFileStatus(path);
  const stream = await fs.open(path);
  try {
    const bytes = Buffer.alloc(status.length);
    if (status.length > 0) await stream.readFully(0, bytes);
    return bytes;
  } finally {
    stream.close();
  }
}

const commitKeys = (cluster: MiniOzoneCluster): number => cluster.om.requests.get('CommitKey') ?? 0;
const putBlocks = (cluster: MiniOzoneCluster): number =>
  cluster.datanodes.reduce((n, d) => n + (d.counters.byCommand['PutBlock'] ?? 0), 0);

describe('hsync on (client and OM settings on)', () => {
  let cluster: MiniOzoneCluster;
  let writer: OzoneFileSystem;
  let reader: OzoneFileSystem;
  let client: OzoneClient;

  beforeAll(async () => {
    cluster = await startMiniOzoneCluster({ datanodes: 3, omConfiguration: OM_HSYNC_ON });
    writer = fileSystem(cluster, HSYNC_ON);
    reader = fileSystem(cluster, {});
    client = createOzoneClient({ omAddress: cluster.omAddress, userName: 'hbase' });
    await writer.mkdirs('/vol1/bucket1/wal');
  });

  afterAll(async () => {
    writer?.close();
    reader?.close();
    client?.close();
    await cluster?.close();
  });

  it("shows readers each hsync'ed prefix of a still-open file, and close() commits the final length", async () => {
    const data = contractKeyBytes(300 * KiB + 7, 11);
    const path = '/vol1/bucket1/wal/log.1';
    const out = await writer.create(path);
    expect(out.hasCapability('hsync')).toBe(true);
    expect(out.hasCapability('hflush')).toBe(true);

    // Mid-chunk: the partial chunk goes out as a chunk of its own.
    await out.write(data.subarray(0, 100 * KiB + 3));
    await out.hsync();
    expect((await readNow(reader, path)).equals(data.subarray(0, 100 * KiB + 3))).toBe(true);
    const open = await client.getKeyInfo('vol1', 'bucket1', 'wal/log.1');
    expect(open.metadata['hsyncClientId']).toMatch(/^\d+$/);

    // Across the 256 KiB block boundary: hflush is hsync.
    await out.write(data.subarray(100 * KiB + 3, 300 * KiB));
    await out.hflush();
    const second = await readNow(reader, path);
    expect(second.equals(data.subarray(0, 300 * KiB))).toBe(true);
    expect(
      (await client.getKeyInfo('vol1', 'bucket1', 'wal/log.1')).blocks.map((b) => b.lengthBytes),
    ).toEqual([256 * KiB, 44 * KiB]);

    // Written but not synced: readers still see the last hsync.
    await out.write(data.subarray(300 * KiB));
    expect((await readNow(reader, path)).length).toBe(300 * KiB);

    await out.close();
    expect((await readNow(reader, path)).equals(data)).toBe(true);
    const closed = await client.getKeyInfo('vol1', 'bucket1', 'wal/log.1');
    expect(closed.sizeBytes).toBe(data.length);
    expect(closed.metadata).toEqual({});
    await expect(out.hsync()).rejects.toMatchObject({ code: 'ERR_OZONE_CLOSED' });
  });

  it('makes an empty file visible at 0 bytes', async () => {
    const out = await writer.create('/vol1/bucket1/wal/empty');
    await out.hsync();
    expect((await reader.getFileStatus('/vol1/bucket1/wal/empty')).length).toBe(0);
    await out.close();
  });

  it('refuses a key with one replica before sending anything, and the stream still closes', async () => {
    const out = await writer.create('/vol1/bucket1/wal/one', { replication: 'ONE' });
    await out.write(contractKeyBytes(10 * KiB, 12));
    const before = commitKeys(cluster);
    await expect(out.hsync()).rejects.toMatchObject({
      code: 'ERR_OZONE_HSYNC_UNSUPPORTED',
      message: expect.stringContaining('replication factor = 1 <= 1'),
    });
    expect(commitKeys(cluster)).toBe(before);
    await out.close();
    expect((await readNow(reader, '/vol1/bucket1/wal/one')).equals(contractKeyBytes(10 * KiB, 12))).toBe(
      true,
    );
  });
});

describe('hsync off', () => {
  let cluster: MiniOzoneCluster;
  let reader: OzoneFileSystem;

  beforeAll(async () => {
    cluster = await startMiniOzoneCluster({ datanodes: 3, omConfiguration: OM_HSYNC_ON });
    reader = fileSystem(cluster, {});
  });

  afterAll(async () => {
    reader?.close();
    await cluster?.close();
  });

  // Off by default, and with only one of the two client settings on (OzoneFSUtils#canEnableHsync).
  for (const [name, properties] of [
    ['by default', {}],
    ['with only ozone.fs.hsync.enabled', { 'ozone.fs.hsync.enabled': 'true' }],
  ] as const)
    it(`is flush() ${name}: nothing reaches the OM and a new file stays invisible until close()`, async () => {
      const fs = fileSystem(cluster, properties);
      const path = `/vol1/bucket1/off-${Object.keys(properties).length}`;
      const data = contractKeyBytes(200 * KiB, 13);
      try {
        const out = await fs.create(path);
        expect(out.hasCapability('hsync')).toBe(false);
        const commits = commitKeys(cluster);
        // Less than a chunk since the last PutBlock: flush (with ozone.client.stream.buffer.flush.delay) sends nothing.
        await out.write(data.subarray(0, 10 * KiB));
        const idle = putBlocks(cluster);
        await out.hsync();
        await out.hflush();
        expect(putBlocks(cluster)).toBe(idle);
        // A chunk's worth since the last PutBlock: flush sends it and a PutBlock on every replica.
        await out.write(data.subarray(10 * KiB, 80 * KiB));
        await out.hsync();
        expect(putBlocks(cluster)).toBe(idle + 3);
        expect(commitKeys(cluster)).toBe(commits);
        await expect(reader.getFileStatus(path)).rejects.toBeInstanceOf(FileNotFoundError);
        await out.write(data.subarray(80 * KiB));
        await out.close();
        expect((await readNow(reader, path)).equals(data)).toBe(true);
      } finally {
        fs.close();
      }
    });
});

describe('hsync on in the client, off in the OM', () => {
  let cluster: MiniOzoneCluster;
  let writer: OzoneFileSystem;

  beforeAll(async () => {
    cluster = await startMiniOzoneCluster({ datanodes: 3 });
    writer = fileSystem(cluster, HSYNC_ON);
  });

  afterAll(async () => {
    writer?.close();
    await cluster?.close();
  });

  it('is refused by the OM with NOT_SUPPORTED_OPERATION; the stream stays usable and close() commits', async () => {
    const data = contractKeyBytes(70 * KiB, 14);
    const out = await writer.create('/vol1/bucket1/refused');
    await out.write(data.subarray(0, 30 * KiB));
    await expect(out.hsync()).rejects.toMatchObject({
      code: 'ERR_OZONE_NOT_SUPPORTED_OPERATION',
      message: expect.stringContaining('ozone.fs.hsync.enabled'),
    });
    await expect(writer.getFileStatus('/vol1/bucket1/refused')).rejects.toBeInstanceOf(FileNotFoundError);
    await out.write(data.subarray(30 * KiB));
    await out.close();
    expect((await readNow(writer, '/vol1/bucket1/refused')).equals(data)).toBe(true);
  });

  it('refuses OM settings it does not read, before starting anything', async () => {
    await expect(
      startMiniOzoneCluster({ omConfiguration: { 'ozone.om.address': 'x' } }),
    ).rejects.toMatchObject({
      code: 'ERR_OZONE_MINI_CLUSTER',
    });
    await expect(
      startMiniOzoneCluster({ omConfiguration: { 'ozone.fs.hsync.enabled': 'yes' } }),
    ).rejects.toThrow(/ozone\.fs\.hsync\.enabled/);
  });
});

describe("hsync'ed data survives the pipeline's leader stopping", () => {
  let cluster: MiniOzoneCluster;

  beforeAll(async () => {
    cluster = await startMiniOzoneCluster({
      datanodes: 3,
      omConfiguration: OM_HSYNC_ON,
      ratisWatchTimeoutMs: 500,
    });
  });

  afterAll(async () => {
    await cluster?.close();
  });

  it('keeps every acknowledged byte when the leader stops between hsyncs', async () => {
    const writer = fileSystem(cluster, HSYNC_ON);
    const data = contractKeyBytes(180 * KiB + 1, 15);
    const path = '/vol1/bucket1/failover';
    try {
      const out = await writer.create(path);
      await out.write(data.subarray(0, 90 * KiB));
      await out.hsync();
      await cluster.stopDatanode(cluster.datanodes[0]?.uuid as string);
      await out.write(data.subarray(90 * KiB));
      await out.hsync();
      // Read from the two members that stayed up.
      expect((await readNow(writer, path)).equals(data)).toBe(true);
      await out.close();
      expect((await readNow(writer, path)).equals(data)).toBe(true);
    } finally {
      writer.close();
    }
  });
});
