// One contract suite for fastpath's Ozone client, run against every cluster that speaks Ozone's
// protocols: the embedded mini cluster, and Ozone's own MiniOzoneCluster (where keys are written
// by Ozone's Java client and read by fastpath). Cluster differences live in the adapter.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient, type ChecksumTypeName, type OzoneClient } from '../../index.js';
import { CHECKSUM_TYPES } from './checksum-types.js';
import { contractKeyBytes } from './contract-key-bytes.js';
import type {
  ContractKeySpec,
  OzoneClusterAdapter,
  OzoneContractCapabilities,
} from './ozone-cluster-adapter.js';
import { writeContractKey } from './write-contract-key.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const CHUNK = 4 * MiB;

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/**
 * Registers the contract suite. Call it inside a `describe` whose `beforeAll` starts the cluster;
 * `adapter()` is called after that.
 *
 * @example
 * ```ts
 * describe('embedded mini cluster', () => {
 *   let cluster: MiniOzoneCluster;
 *   beforeAll(async () => (cluster = await startMiniOzoneCluster()));
 *   afterAll(() => cluster.close());
 *   describeOzoneContract(() => miniClusterAdapter(cluster), { corruptReplica: true, stopDatanode: true, fastpathWrites: true });
 * });
 * ```
 */
export function describeOzoneContract(
  adapter: () => OzoneClusterAdapter,
  capabilities: OzoneContractCapabilities,
): void {
  let client: OzoneClient;
  let run = 0;
  const volume = (): string => `cv${process.pid % 10000}x${run}`;
  const written = new Map<string, ContractKeySpec>();

  beforeAll(async () => {
    run = Date.now() % 1_000_000;
    const a = adapter();
    client = createOzoneClient({
      omAddress: a.omAddress,
      userName: 'contract',
      ...(a.tls ? { tls: a.tls } : {}),
      ...a.clientOptions,
      config: { readRetryIntervalMs: 0, ...a.clientOptions?.config },
    });
    await client.createVolume(volume());
    for (const layout of ['FILE_SYSTEM_OPTIMIZED', 'LEGACY', 'OBJECT_STORE'] as const) {
      await client.createBucket(volume(), `b-${layout.toLowerCase().replaceAll('_', '-')}`, { layout });
    }
  });
  afterAll(() => client?.close());

  const BUCKET = 'b-object-store';

  async function writeKey(
    spec: Omit<ContractKeySpec, 'volume' | 'bucket' | 'replication'> & {
      bucket?: string;
      replication?: 'ONE' | 'THREE';
    },
  ): Promise<ContractKeySpec> {
    const full: ContractKeySpec = { volume: volume(), bucket: BUCKET, replication: 'THREE', ...spec };
    await writeContractKey(adapter(), client, full);
    written.set(full.key, full);
    return full;
  }

  const layout = {
    checksumType: 'CRC32' as ChecksumTypeName,
    bytesPerChecksum: 16 * KiB,
    chunkSizeBytes: CHUNK,
    blockSizeBytes: 256 * MiB,
  };

  describe('volumes', () => {
    it('creates, describes, lists and deletes a volume', async () => {
      const name = `${volume()}-v`;
      await client.createVolume(name, { owner: 'contract' });
      const info = await client.getVolume(name);
      expect(info).toMatchObject({ name, owner: 'contract' });
      // Listed among the cluster's volumes (an OM with ACLs lists a user's own only by ACL).
      expect((await client.listVolumes({ prefix: name, allUsers: true })).map((v) => v.name)).toEqual([name]);
      await client.deleteVolume(name);
      await expect(client.getVolume(name)).rejects.toMatchObject({ code: 'ERR_OZONE_VOLUME_NOT_FOUND' });
    });

    it('refuses a duplicate volume and deleting a volume that has buckets', async () => {
      await expect(client.createVolume(volume())).rejects.toMatchObject({
        code: 'ERR_OZONE_VOLUME_ALREADY_EXISTS',
        status: 'VOLUME_ALREADY_EXISTS',
      });
      await expect(client.deleteVolume(volume())).rejects.toMatchObject({
        code: 'ERR_OZONE_VOLUME_NOT_EMPTY',
      });
    });
  });

  describe('buckets', () => {
    it.each(['FILE_SYSTEM_OPTIMIZED', 'LEGACY', 'OBJECT_STORE'] as const)(
      'keeps the %s layout',
      async (l) => {
        const info = await client.getBucket(volume(), `b-${l.toLowerCase().replaceAll('_', '-')}`);
        expect(info).toMatchObject({ volume: volume(), layout: l, storageType: 'DISK', versioning: false });
      },
    );

    it('lists buckets with a prefix and after a start key, and deletes an empty bucket', async () => {
      expect((await client.listBuckets(volume())).map((b) => b.name)).toEqual([
        'b-file-system-optimized',
        'b-legacy',
        'b-object-store',
      ]);
      expect((await client.listBuckets(volume(), { prefix: 'b-l' })).map((b) => b.name)).toEqual([
        'b-legacy',
      ]);
      expect((await client.listBuckets(volume(), { startAfter: 'b-legacy' })).map((b) => b.name)).toEqual([
        'b-object-store',
      ]);
      await client.createBucket(volume(), 'b-tmp');
      await client.deleteBucket(volume(), 'b-tmp');
      await expect(client.getBucket(volume(), 'b-tmp')).rejects.toMatchObject({
        code: 'ERR_OZONE_BUCKET_NOT_FOUND',
      });
      await expect(client.createBucket(volume(), 'b-legacy')).rejects.toMatchObject({
        code: 'ERR_OZONE_BUCKET_ALREADY_EXISTS',
      });
      await expect(client.getBucket(`${volume()}-none`, 'b-legacy')).rejects.toMatchObject({
        code: 'ERR_OZONE_VOLUME_NOT_FOUND',
      });
    });
  });

  describe('keys of every size round-trip', () => {
    const sizes: Array<[string, number]> = [
      ['0 B', 0],
      ['1 B', 1],
      ['one chunk - 1 B', CHUNK - 1],
      ['one chunk', CHUNK],
      ['one chunk + 1 B', CHUNK + 1],
      ['several chunks', 3 * CHUNK + 12345],
    ];
    it.each(sizes)('%s', async (_name, size) => {
      const spec = await writeKey({ ...layout, key: `size-${size}`, sizeBytes: size, seed: size % 997 });
      const details = await client.getKeyInfo(spec.volume, spec.bucket, spec.key);
      expect(details.sizeBytes).toBe(size);
      const data = await client.readKey(spec.volume, spec.bucket, spec.key);
      expect(data.length).toBe(size);
      expect(data.equals(contractKeyBytes(size, spec.seed))).toBe(true);
    });

    it('several blocks (1 MiB chunks, 2 MiB blocks)', async () => {
      const spec = await writeKey({
        ...layout,
        key: 'blocks',
        sizeBytes: 5 * MiB + 3,
        seed: 5,
        chunkSizeBytes: MiB,
        blockSizeBytes: 2 * MiB,
      });
      const details = await client.getKeyInfo(spec.volume, spec.bucket, spec.key);
      expect(details.blocks.map((b) => b.lengthBytes)).toEqual([2 * MiB, 2 * MiB, MiB + 3]);
      expect(details.blocks.map((b) => b.offsetInKey)).toEqual([0, 2 * MiB, 4 * MiB]);
      const stream = await client.openKey(spec.volume, spec.bucket, spec.key);
      // A read across both block boundaries.
      const from = 2 * MiB - 100;
      expect(
        (await stream.readFully(from, 2 * MiB + 200)).equals(contractKeyBytes(2 * MiB + 200, 5, from)),
      ).toBe(true);
      expect(
        (await client.readKey(spec.volume, spec.bucket, spec.key)).equals(
          contractKeyBytes(spec.sizeBytes, 5),
        ),
      ).toBe(true);
    });

    it.each(CHECKSUM_TYPES)(
      'every checksum type: %s, 2 chunks + 1 B at 16 KiB per checksum',
      async (type) => {
        const spec = await writeKey({
          ...layout,
          checksumType: type,
          key: `checksum-${type}`,
          sizeBytes: 2 * CHUNK + 1,
          seed: 7,
        });
        const stream = await client.openKey(spec.volume, spec.bucket, spec.key, { verifyChecksum: true });
        const data = await stream.readFully(0, spec.sizeBytes);
        expect(data.equals(contractKeyBytes(spec.sizeBytes, 7))).toBe(true);
        expect(stream.stats.bytesVerified).toBe(type === 'NONE' ? 0 : spec.sizeBytes);
      },
    );
  });

  const largeKeyBytes = capabilities.largeKeyBytes ?? 64 * MiB;
  describe(`a ${largeKeyBytes / MiB} MiB key round-trips with every checksum type`, () => {
    const size = largeKeyBytes;
    it.each(CHECKSUM_TYPES)(
      '%s',
      async (type) => {
        const spec = await writeKey({
          ...layout,
          checksumType: type,
          bytesPerChecksum: MiB,
          key: `large-${type}`,
          // One replica: the point is the bytes and the checksums, and three copies cost CPU.
          replication: 'ONE',
          sizeBytes: size,
          seed: 64,
        });
        const data = await client.readKey(spec.volume, spec.bucket, spec.key);
        expect(data.length).toBe(size);
        expect(sha256(data)).toBe(sha256(contractKeyBytes(size, 64)));
      },
      180_000,
    );
  });

  describe('positional reads at chunk and checksum boundaries', () => {
    const key = 'boundaries';
    const size = 2 * CHUNK + 5000;
    beforeAll(async () => {
      await writeKey({ ...layout, key, sizeBytes: size, seed: 11 });
    });
    const cases: Array<[string, number, number]> = [
      ['first byte', 0, 1],
      ['last byte of the first checksum window', 16 * KiB - 1, 1],
      ['across a checksum window boundary', 16 * KiB - 3, 6],
      ['last byte of a chunk', CHUNK - 1, 1],
      ['first byte of the second chunk', CHUNK, 1],
      ['across a chunk boundary', CHUNK - 10, 20],
      ['a whole chunk, unaligned', 100, CHUNK],
      ['the short last window', size - 7, 7],
    ];
    it.each(cases)('%s', async (_name, position, length) => {
      const stream = await client.openKey(volume(), BUCKET, key);
      expect((await stream.readFully(position, length)).equals(contractKeyBytes(length, 11, position))).toBe(
        true,
      );
    });

    it('widens a verifying read to whole checksum windows and fetches exactly the range without verification', async () => {
      const on = await client.openKey(volume(), BUCKET, key, { verifyChecksum: true });
      await on.readFully(16 * KiB + 10, 100);
      expect(on.stats.bytesFetched).toBe(16 * KiB);
      expect(on.stats.bytesVerified).toBe(16 * KiB);
      const off = await client.openKey(volume(), BUCKET, key, { verifyChecksum: false });
      await off.readFully(16 * KiB + 10, 100);
      expect(off.stats.bytesFetched).toBe(100);
      expect(off.stats.bytesVerified).toBe(0);
      // Across a window boundary: two windows with verification.
      const on2 = await client.openKey(volume(), BUCKET, key, { verifyChecksum: true });
      await on2.readFully(16 * KiB - 1, 2);
      expect(on2.stats.bytesFetched).toBe(32 * KiB);
    });

    it('16 concurrent positional reads on one stream each get their own bytes', async () => {
      const stream = await client.openKey(volume(), BUCKET, key);
      const reads = Array.from({ length: 16 }, (_, i) => {
        const position = (i * 524_287) % (size - 70_000);
        return stream
          .readFully(position, 65_536 + i)
          .then((b) => b.equals(contractKeyBytes(65_536 + i, 11, position)));
      });
      expect(await Promise.all(reads)).toEqual(Array.from({ length: 16 }, () => true));
    });

    it('refuses reads outside the key', async () => {
      const stream = await client.openKey(volume(), BUCKET, key);
      await expect(stream.readFully(size - 1, 2)).rejects.toMatchObject({
        code: 'ERR_OZONE_INVALID_ARGUMENT',
      });
      await expect(stream.readFully(-1, 1)).rejects.toMatchObject({ code: 'ERR_OZONE_INVALID_ARGUMENT' });
      expect(await stream.read(size, Buffer.alloc(1), 0, 1)).toBe(0);
    });
  });

  describe('key operations', () => {
    it('lists, renames and deletes keys; LookupKey and GetKeyInfo agree', async () => {
      const bucket = 'b-legacy';
      for (const k of ['list/a', 'list/b', 'list/c'])
        await writeKey({ ...layout, bucket, key: k, sizeBytes: 10, seed: 1 });
      expect((await client.listKeys(volume(), bucket, { prefix: 'list/' })).map((k) => k.name)).toEqual([
        'list/a',
        'list/b',
        'list/c',
      ]);
      expect(
        (await client.listKeys(volume(), bucket, { prefix: 'list/', startAfter: 'list/a', count: 1 })).map(
          (k) => k.name,
        ),
      ).toEqual(['list/b']);
      const viaLookup = await client.lookupKey(volume(), bucket, 'list/a');
      const viaInfo = await client.getKeyInfo(volume(), bucket, 'list/a');
      expect(viaLookup.sizeBytes).toBe(viaInfo.sizeBytes);
      expect(viaLookup.blocks.map((b) => b.localId)).toEqual(viaInfo.blocks.map((b) => b.localId));
      await client.renameKey(volume(), bucket, 'list/c', 'list/d');
      await expect(client.getKeyInfo(volume(), bucket, 'list/c')).rejects.toMatchObject({
        code: 'ERR_OZONE_KEY_NOT_FOUND',
      });
      expect((await client.readKey(volume(), bucket, 'list/d')).equals(contractKeyBytes(10, 1))).toBe(true);
      await client.deleteKey(volume(), bucket, 'list/d');
      await expect(client.deleteKey(volume(), bucket, 'list/d')).rejects.toMatchObject({
        code: 'ERR_OZONE_KEY_NOT_FOUND',
      });
      expect((await client.listKeys(volume(), bucket, { prefix: 'list/' })).map((k) => k.name)).toEqual([
        'list/a',
        'list/b',
      ]);
    });

    it("lists a file-system bucket as Ozone's Java client does (a walk of its directories)", async () => {
      const bucket = 'b-file-system-optimized';
      const files = ['fso/a', 'fso/d/b', 'fso/d/e/c', 'fsox', 'fso-y/z', 'fso/d/f'];
      for (const [i, k] of files.entries())
        await writeKey({ ...layout, bucket, key: k, sizeBytes: 10 + i, seed: i });
      const names = async (prefix: string, more: { startAfter?: string; count?: number } = {}) =>
        (await client.listKeys(volume(), bucket, { prefix, ...more })).map((k) => k.name);
      const subtree = ['fso/', 'fso/a', 'fso/d/', 'fso/d/b', 'fso/d/e/', 'fso/d/e/c', 'fso/d/f'];
      // What Ozone 2.2.0's Java client lists for these prefixes (OzoneBucket#listKeys).
      const expected: Array<[string, string[]]> = [
        ['', [...subtree, 'fso-y/', 'fso-y/z', 'fsox']],
        ['fso', subtree],
        ['fso-', ['fso-y/', 'fso-y/z']],
        ['fso/d/e', ['fso/d/e/', 'fso/d/e/c']],
        ['fso/x', []],
      ];
      for (const [prefix, keys] of expected) expect(await names(prefix)).toEqual(keys);
      expect(await names('fso', { startAfter: 'fso/d/b', count: 2 })).toEqual(['fso/d/e/', 'fso/d/e/c']);
      const sizes = (await client.listKeys(volume(), bucket, { prefix: 'fso/d/' })).map((k) => k.sizeBytes);
      expect(sizes).toEqual([0, 11, 0, 12, 15]);
      const a = adapter();
      if (capabilities.javaClient && a.listKeysWithJava)
        for (const [prefix] of expected)
          expect((await a.listKeysWithJava(volume(), bucket, prefix)).map((k) => k.name)).toEqual(
            await names(prefix),
          );
    });

    it('refuses deleting a bucket that has keys', async () => {
      await expect(client.deleteBucket(volume(), 'b-legacy')).rejects.toMatchObject({
        code: 'ERR_OZONE_BUCKET_NOT_EMPTY',
      });
    });
  });

  if (capabilities.corruptReplica) {
    describe('failover on a corrupt replica', () => {
      it('a verifying read fails over to the next replica and returns the right bytes', async () => {
        const spec = await writeKey({ ...layout, key: 'corrupt-one', sizeBytes: CHUNK + 100, seed: 21 });
        await adapter().corruptReplica?.({
          volume: spec.volume,
          bucket: spec.bucket,
          key: spec.key,
          offsetInKey: 20_000,
          replica: 0,
        });
        const stream = await client.openKey(spec.volume, spec.bucket, spec.key, { verifyChecksum: true });
        expect(
          (await stream.readFully(16 * KiB, 16 * KiB)).equals(contractKeyBytes(16 * KiB, 21, 16 * KiB)),
        ).toBe(true);
        expect(stream.stats.failovers).toBe(1);
        // Without verification the stored (damaged) byte comes back: nothing checked it.
        const raw = await client.openKey(spec.volume, spec.bucket, spec.key, { verifyChecksum: false });
        const got = await raw.readFully(20_000, 1);
        expect(got[0]).toBe((contractKeyBytes(1, 21, 20_000)[0] as number) ^ 0xff);
      });

      it('with every replica corrupt, the error names the block, chunk and offset', async () => {
        const spec = await writeKey({ ...layout, key: 'corrupt-all', sizeBytes: 50_000, seed: 22 });
        for (const replica of [0, 1, 2])
          await adapter().corruptReplica?.({
            volume: spec.volume,
            bucket: spec.bucket,
            key: spec.key,
            offsetInKey: 40_000,
            replica,
          });
        const stream = await client.openKey(spec.volume, spec.bucket, spec.key);
        const err = await stream.readFully(0, spec.sizeBytes).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: 'ERR_OZONE_REPLICAS_EXHAUSTED' });
        const attempts = (
          err as { attempts: Array<{ code: string; location: { chunkName: string; offsetInChunk: number } }> }
        ).attempts;
        expect(attempts.map((a) => a.code)).toEqual([
          'ERR_OZONE_CHECKSUM_MISMATCH',
          'ERR_OZONE_CHECKSUM_MISMATCH',
          'ERR_OZONE_CHECKSUM_MISMATCH',
        ]);
        expect(attempts[0]?.location).toMatchObject({
          chunkName: expect.stringMatching(/_chunk_1$/),
          offsetInChunk: 32 * KiB,
        });
      });
    });
  }

  if (capabilities.stopDatanode) {
    describe('failover on an unavailable datanode', () => {
      it('reads through the next replica while the first is down', async () => {
        const spec = await writeKey({ ...layout, key: 'dn-down', sizeBytes: 100_000, seed: 31 });
        const restart = await adapter().stopReplica?.({
          volume: spec.volume,
          bucket: spec.bucket,
          key: spec.key,
          replica: 0,
        });
        try {
          const stream = await client.openKey(spec.volume, spec.bucket, spec.key);
          expect(
            (await stream.readFully(0, spec.sizeBytes)).equals(contractKeyBytes(spec.sizeBytes, 31)),
          ).toBe(true);
          expect(stream.stats.failovers).toBeGreaterThanOrEqual(1);
        } finally {
          await restart?.();
        }
        const again = await client.openKey(spec.volume, spec.bucket, spec.key);
        expect((await again.readFully(0, spec.sizeBytes)).equals(contractKeyBytes(spec.sizeBytes, 31))).toBe(
          true,
        );
      });
    });
  }
}
