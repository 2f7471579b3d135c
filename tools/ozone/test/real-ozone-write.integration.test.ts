// fastpath writes to a real MiniOzoneCluster through Ratis. The shared write suite
// (describeOzoneWrites, also run against the embedded cluster): keys of every size, several
// blocks, a whole 256 MiB block and every checksum type, each read back by Ozone's own Java client
// with checksums verified, byte for byte, each block recorded by the OM (asked from the Java side)
// with a BCSID other than 0 (a block written beside Ratis, over the standalone port, would carry
// 0) that every member of its pipeline holds, as GetBlock on its standalone port says; a
// Java-written and a fastpath-written key listed and read alike by both clients; a follower and
// then the pipeline's leader stopped mid-write; all of it once per HTTP/2 session of the Ratis
// streams (Node's http2, @fastpath/grpc-http2's socket session). And what only this cluster shows:
// `fastpath-ozone fs -put`/`-cat` of a 100 MiB file, and HBase's pattern on a file fastpath's file
// system wrote.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient, newFileSystemInstance, type OzoneClient } from '@fastpath/ozone-fs-client';
import {
  contractKeyBytes,
  describeOzoneWrites,
  expectWrittenKey,
  type OzoneClusterAdapter,
  withRatisChannel,
} from '@fastpath/ozone-fs-client/testing/contract';
import { startRealOzoneCluster, type RealOzoneCluster } from '@fastpath/ozone-fixture';
import { fastpathOzone } from './support/fastpath-ozone-cli.js';
import { REAL_CLUSTER_CAPABILITIES, realClusterAdapter } from './support/real-cluster-adapter.js';

jest.setTimeout(600_000);

const VOLUME = 'writevol';
const BUCKET = 'writebkt';
const KiB = 1024;
const MiB = 1024 * KiB;

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('fastpath writes to a real MiniOzoneCluster (RATIS pipelines)', () => {
  let cluster: RealOzoneCluster;
  let client: OzoneClient;
  let adapter: OzoneClusterAdapter;
  let dir: string;

  beforeAll(async () => {
    cluster = await startRealOzoneCluster({
      datanodes: 3,
      // With a member stopped (the write suite's last tests) an ALL_COMMITTED watch is answered
      // NotReplicated after this, and the client watches again at MAJORITY_COMMITTED.
      configuration: { 'hdds.ratis.raft.server.watch.timeout': '5s' },
    });
    client = createOzoneClient({ omAddress: cluster.omGrpcAddress, userName: 'writer' });
    adapter = realClusterAdapter(cluster, client);
    await client.createVolume(VOLUME);
    await client.createBucket(VOLUME, BUCKET);
    dir = mkdtempSync(join(tmpdir(), 'fastpath-real-write-'));
  });

  afterAll(async () => {
    client?.close();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('fastpath-ozone fs -put and -cat of a 100 MiB file against the real cluster', async () => {
    const data = contractKeyBytes(100 * MiB, 21);
    const local = join(dir, 'put-file');
    writeFileSync(local, data);
    const root = `ofs://${cluster.omGrpcAddress}/${VOLUME}/${BUCKET}`;
    const put = await fastpathOzone({ HADOOP_USER_NAME: 'writer' }, 'fs', '-put', local, `${root}/`);
    expect(put.stderr).not.toMatch(/ERR_|^\s+at /m);
    expect(put.code).toBe(0);
    const cat = await fastpathOzone({ HADOOP_USER_NAME: 'writer' }, 'fs', '-cat', `${root}/put-file`);
    expect(cat.code).toBe(0);
    expect(sha256(cat.stdout)).toBe(sha256(data));
    await expectWrittenKey(adapter, client, {
      volume: VOLUME,
      bucket: BUCKET,
      key: 'put-file',
      sizeBytes: data.length,
      seed: 21,
      replicas: 3,
    });
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

  // Last: its stop tests stop a datanode of the pipeline (and start it again), which the tests
  // above must not see.
  // Once per HTTP/2 session of the Ratis streams (`ozone.client.ratis.grpc.channel`).
  describe.each(['http2', 'socket'] as const)(
    'the shared write suite, Ratis streams on the %s session',
    (channel) => {
      describeOzoneWrites(
        withRatisChannel(() => adapter, channel),
        REAL_CLUSTER_CAPABILITIES,
      );
    },
  );
});
