// fastpath writes to a real MiniOzoneCluster through Ratis: every key is read back by Ozone's own
// Java client with checksums verified, byte for byte; the OM (asked from the Java side) records
// each block with a BCSID other than 0 (a block written beside Ratis, over the standalone port,
// would carry 0); and every member of the block's pipeline holds it with that BCSID and length,
// as GetBlock on its standalone port says.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createOzoneClient,
  newFileSystemInstance,
  type CreateKeyOptions,
  type OzoneClient,
} from '@fastpath/ozone-fs-client';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { startRealOzoneCluster, type RealOzoneCluster } from '@fastpath/ozone-fixture';
import { standaloneGetBlock } from './support/standalone-get-block.js';

jest.setTimeout(600_000);

const VOLUME = 'writevol';
const BUCKET = 'writebkt';
const KiB = 1024;
const MiB = 1024 * KiB;

interface WriteCase {
  key: string;
  sizeBytes: number;
  options?: CreateKeyOptions;
  /** Write through the client with small flush and buffer limits (several PutBlocks per block, back-pressure). */
  smallBuffers?: boolean;
}

const CASES: WriteCase[] = [
  { key: 'zero', sizeBytes: 0 },
  { key: 'one-byte', sizeBytes: 1 },
  { key: 'chunk-minus-one', sizeBytes: 4 * MiB - 1 },
  { key: 'chunk', sizeBytes: 4 * MiB },
  { key: 'chunk-plus-one', sizeBytes: 4 * MiB + 1 },
  // Around the 16 MiB flush size (ozone.client.stream.buffer.flush.size): a PutBlock and its watch
  // mid-block, and the 32 MiB buffer limit's back-pressure not reached.
  { key: 'flush-minus-one', sizeBytes: 16 * MiB - 1 },
  { key: 'flush', sizeBytes: 16 * MiB },
  { key: 'flush-plus-one', sizeBytes: 16 * MiB + 1 },
  {
    key: 'four-blocks',
    sizeBytes: 3 * MiB + 5,
    options: { blockSizeBytes: MiB, chunkSizeBytes: 256 * KiB },
    smallBuffers: true,
  },
  { key: 'ratis-one', sizeBytes: MiB + 3, options: { replication: 'ONE' } },
  // A whole default block (ozone.scm.block.size): 16 flushes, back-pressure at 32 MiB.
  { key: 'block-256-mib', sizeBytes: 256 * MiB },
  ...(['NONE', 'CRC32', 'CRC32C', 'SHA256', 'MD5'] as const).map((checksumType) => ({
    key: `checksum-${checksumType}`,
    sizeBytes: 100_000,
    options: { checksumType, bytesPerChecksum: 16 * KiB },
  })),
];

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Runs the installed `fastpath-ozone` command as its own process. */
function fastpathOzone(...args: string[]): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const pkg = dirname(createRequire(__filename).resolve('@fastpath/ozone-fs-client/package.json'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(pkg, 'bin/fastpath-ozone.js'), ...args],
      { env: { ...process.env, HADOOP_USER_NAME: 'writer' }, encoding: 'buffer', maxBuffer: 256 * MiB },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr: stderr.toString('utf8') });
      },
    );
  });
}

describe('fastpath writes to a real MiniOzoneCluster (RATIS pipelines)', () => {
  let cluster: RealOzoneCluster;
  let client: OzoneClient;
  let smallBuffers: OzoneClient;
  let dir: string;

  beforeAll(async () => {
    cluster = await startRealOzoneCluster({ datanodes: 3 });
    client = createOzoneClient({ omAddress: cluster.omGrpcAddress, userName: 'writer' });
    smallBuffers = createOzoneClient({
      omAddress: cluster.omGrpcAddress,
      userName: 'writer',
      config: { flushSizeBytes: 512 * KiB, maxBufferSizeBytes: 512 * KiB },
    });
    await client.createVolume(VOLUME);
    await client.createBucket(VOLUME, BUCKET);
    dir = mkdtempSync(join(tmpdir(), 'fastpath-real-write-'));
  });

  afterAll(async () => {
    client?.close();
    smallBuffers?.close();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Every check of one committed key against what was written. */
  async function expectCommittedThroughRatis(key: string, data: Buffer, replicas: number): Promise<void> {
    const java = await cluster.readKeyWithJava(VOLUME, BUCKET, key);
    expect(java).toEqual({ bytesRead: data.length, sha256: sha256(data) });

    const lookup = await cluster.lookupKey(VOLUME, BUCKET, key);
    if (!lookup.found) throw new Error(`${key} is not committed`);
    expect(lookup.dataSize).toBe(data.length);
    expect(lookup.blocks.reduce((n, b) => n + b.lengthBytes, 0)).toBe(data.length);
    if (data.length === 0) expect(lookup.blocks).toEqual([]);

    const details = await client.getKeyInfo(VOLUME, BUCKET, key);
    expect(details.blocks.map((b) => b.localId)).toEqual(lookup.blocks.map((b) => b.localId));
    for (const [i, block] of lookup.blocks.entries()) {
      expect(block.blockCommitSequenceId).toBeGreaterThan(0n);
      const members = (details.blocks[i] as (typeof details.blocks)[number]).datanodes;
      expect(members).toHaveLength(replicas);
      for (const member of members) {
        const replica = await standaloneGetBlock(member.address, member.uuid, block);
        expect({ datanode: member.uuid, ...replica }).toEqual({
          datanode: member.uuid,
          result: 'SUCCESS',
          blockCommitSequenceId: block.blockCommitSequenceId,
          sizeBytes: block.lengthBytes,
        });
      }
    }
  }

  it.each(CASES)('$key ($sizeBytes B) is committed through Ratis and read back by Java', async (c) => {
    const data = contractKeyBytes(c.sizeBytes, c.key.length);
    await (c.smallBuffers ? smallBuffers : client).writeKey(VOLUME, BUCKET, c.key, data, c.options ?? {});
    await expectCommittedThroughRatis(c.key, data, c.options?.replication === 'ONE' ? 1 : 3);
  });

  it('the several-block key has one block per MiB, each with its own BCSID', async () => {
    const lookup = await cluster.lookupKey(VOLUME, BUCKET, 'four-blocks');
    if (!lookup.found) throw new Error('four-blocks is not committed');
    expect(lookup.blocks.map((b) => b.lengthBytes)).toEqual([MiB, MiB, MiB, 5]);
  });

  it('a key written in pieces across chunk and flush boundaries reads back whole', async () => {
    const data = contractKeyBytes(2 * MiB + 7, 11);
    const out = await smallBuffers.createKey(VOLUME, BUCKET, 'pieces', {
      chunkSizeBytes: 256 * KiB,
      blockSizeBytes: 4 * MiB,
    });
    for (let at = 0; at < data.length; at += 100_003) await out.write(data.subarray(at, at + 100_003));
    await out.close();
    await expectCommittedThroughRatis('pieces', data, 3);
  });

  it('fastpath-ozone fs -put and -cat of a 100 MiB file against the real cluster', async () => {
    const data = contractKeyBytes(100 * MiB, 21);
    const local = join(dir, 'put-file');
    writeFileSync(local, data);
    const root = `ofs://${cluster.omGrpcAddress}/${VOLUME}/${BUCKET}`;
    const put = await fastpathOzone('fs', '-put', local, `${root}/`);
    expect(put.stderr).not.toMatch(/ERR_|^\s+at /m);
    expect(put.code).toBe(0);
    const cat = await fastpathOzone('fs', '-cat', `${root}/put-file`);
    expect(cat.code).toBe(0);
    expect(sha256(cat.stdout)).toBe(sha256(data));
    await expectCommittedThroughRatis('put-file', data, 3);
  });

  it('a Java-written and a fastpath-written key are listed and read alike by both clients', async () => {
    await cluster.writeKeys([
      {
        volume: VOLUME,
        bucket: BUCKET,
        key: 'mixed/by-java',
        size: 300_001,
        seed: 51,
        replication: 'RATIS/THREE',
      },
    ]);
    const fromFastpath = contractKeyBytes(300_002, 52);
    await client.writeKey(VOLUME, BUCKET, 'mixed/by-fastpath', fromFastpath);
    const fromJava = contractKeyBytes(300_001, 51);
    const expected = [
      { name: 'mixed/by-fastpath', sizeBytes: 300_002 },
      { name: 'mixed/by-java', sizeBytes: 300_001 },
    ];
    // Files only (a file-system bucket may list the directory 'mixed/' too), by name.
    const files = (keys: ReadonlyArray<{ name: string; sizeBytes: number }>) =>
      keys
        .filter((k) => !k.name.endsWith('/'))
        .map((k) => ({ name: k.name, sizeBytes: k.sizeBytes }))
        .sort((x, y) => x.name.localeCompare(y.name));
    expect(files(await cluster.listKeysWithJava(VOLUME, BUCKET, 'mixed/'))).toEqual(expected);
    // fastpath lists a file-system bucket's directory as Ozone's file system does (ListStatus).
    const listed = await client.listStatus(VOLUME, BUCKET, 'mixed');
    expect(files(listed.map((st) => ({ name: st.keyName, sizeBytes: st.sizeBytes })))).toEqual(expected);
    for (const [key, data] of [
      ['mixed/by-java', fromJava],
      ['mixed/by-fastpath', fromFastpath],
    ] as const) {
      expect(await cluster.readKeyWithJava(VOLUME, BUCKET, key)).toEqual({
        bytesRead: data.length,
        sha256: sha256(data),
      });
      expect(sha256(await client.readKey(VOLUME, BUCKET, key))).toBe(sha256(data));
    }
  });

  it("HBase's pattern end to end: fastpath's file system writes a file, a setVerifyChecksum(false) instance and a verifying one read it", async () => {
    const uri = `ofs://${cluster.omGrpcAddress}`;
    const path = `/${VOLUME}/${BUCKET}/hbase/hfile-1`;
    const properties = { 'ozone.client.bytes.per.checksum': '1MB' };
    const fs = newFileSystemInstance(uri, { properties, userName: 'writer' });
    const noChecksumFs = newFileSystemInstance(uri, { properties, userName: 'writer' });
    try {
      const data = contractKeyBytes(5 * MiB + 123, 41);
      const out = await fs.create(path, { overwrite: false });
      for (let at = 0; at < data.length; at += 777_777) await out.write(data.subarray(at, at + 777_777));
      await out.close();
      noChecksumFs.setVerifyChecksum(false);
      for (const reader of [noChecksumFs, fs]) {
        const block = Buffer.alloc(64 * KiB);
        const stream = await reader.open(path);
        try {
          await stream.readFully(4 * MiB + 100, block);
        } finally {
          stream.close();
        }
        expect(block.equals(data.subarray(4 * MiB + 100, 4 * MiB + 100 + 64 * KiB))).toBe(true);
      }
      expect(await cluster.readKeyWithJava(VOLUME, BUCKET, 'hbase/hfile-1')).toEqual({
        bytesRead: data.length,
        sha256: sha256(data),
      });
    } finally {
      fs.close();
      noChecksumFs.close();
    }
  });

  // Last: it stops a datanode of the pipeline (and starts it again), which the keys above must not see.
  it('a pipeline member stopped mid-write: the key completes, nothing acknowledged is lost, and Java reads it', async () => {
    const data = contractKeyBytes(40 * MiB + 9, 31);
    const out = await client.createKey(VOLUME, BUCKET, 'member-stopped', { sizeBytes: data.length });
    await out.write(data.subarray(0, 20 * MiB));
    const members = (await client.getKeyInfo(VOLUME, BUCKET, 'chunk')).blocks[0]?.datanodes ?? [];
    const stopped = members[members.length - 1];
    if (stopped === undefined) throw new Error('no pipeline member to stop');
    await cluster.stopDatanode(stopped.uuid);
    try {
      await out.write(data.subarray(20 * MiB));
      await out.close();
      const java = await cluster.readKeyWithJava(VOLUME, BUCKET, 'member-stopped');
      expect(java).toEqual({ bytesRead: data.length, sha256: sha256(data) });
      const lookup = await cluster.lookupKey(VOLUME, BUCKET, 'member-stopped');
      if (!lookup.found) throw new Error('member-stopped is not committed');
      expect(lookup.dataSize).toBe(data.length);
      expect(lookup.blocks.every((b) => b.blockCommitSequenceId > 0n)).toBe(true);
    } finally {
      await cluster.restartDatanode(stopped.uuid);
    }
  });
});
