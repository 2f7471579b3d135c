// Encrypted buckets on Apache Ozone's own MiniOzoneCluster, with a KMS as the cluster's key
// provider (`hadoop.security.key.provider.path` of the OM): first fastpath-kms, then Hadoop's own
// KMS. On each pairing fastpath writes encrypted keys that Ozone's Java client reads, and reads
// what Java wrote; the block files on the datanodes hold ciphertext; positional reads cross chunk
// and block edges; a user without DECRYPT_EEK gets the KMS's 403; a rolled key keeps old keys
// readable while new keys take the new version; plain buckets are unchanged.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startHadoopKms, type HadoopKms } from '@fastpath/hadoop-fixture';
import { KmsClient } from '@fastpath/kms-client';
import { createKmsServer, type KmsServer } from '@fastpath/kms-server';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { startRealOzoneCluster, type RealOzoneCluster } from '@fastpath/ozone-fixture';

jest.setTimeout(900_000);

const KiB = 1024;
const MiB = 1024 * KiB;
const VOLUME = 'tdevol';
const BUCKET_KEY = 'bk1';
// The MiniOzoneCluster's OM and Ozone's Java client run as this JVM's user (simple authentication).
const JVM_USER = process.env['HADOOP_USER_NAME'] ?? userInfo().username;
/**
 * The KMS ACLs of an Ozone cluster: the OM's user makes data keys (GENERATE_EEK, and READ for the
 * key's metadata at CreateBucket); readers and writers decrypt them (DECRYPT_EEK); mallory
 * neither. The admin manages keys.
 */
const KEY_ACLS = {
  'default.key.acl.MANAGEMENT': 'admin',
  'default.key.acl.READ': `${JVM_USER},admin`,
  'default.key.acl.GENERATE_EEK': JVM_USER,
  'default.key.acl.DECRYPT_EEK': `${JVM_USER},alice`,
};
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

interface KmsUnderTest {
  /** `http://127.0.0.1:<port>/kms` */
  url: string;
  close(): Promise<void>;
}

async function startFastpathKms(): Promise<KmsUnderTest> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fastpath-tde-real-kms-'));
  const server: KmsServer = await createKmsServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    scrypt: { logN: 10, r: 8, p: 1 },
    acls: KEY_ACLS,
  });
  const base = await server.listen();
  return {
    url: `${base}/kms`,
    close: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startHadoopsKms(): Promise<KmsUnderTest> {
  const kms: HadoopKms = await startHadoopKms({ acls: KEY_ACLS });
  return { url: kms.url, close: () => kms.close() };
}

/** A replica's block file (FILE_PER_BLOCK: `<localId>.block`) as a datanode stores it. */
async function blockFile(cluster: RealOzoneCluster, datanodeUuid: string, localId: bigint): Promise<Buffer> {
  const datanode = cluster.datanodes.find((d) => d.uuid === datanodeUuid);
  if (!datanode) throw new Error(`no datanode ${datanodeUuid}`);
  const name = `${localId}.block`;
  for (const dir of datanode.dataDirs) {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    const hit = entries.find((e) => e.isFile() && e.name === name);
    if (hit) return readFile(join(hit.parentPath, hit.name));
  }
  throw new Error(`datanode ${datanodeUuid} holds no ${name}`);
}

function describeEncryptedBuckets(name: string, startKms: () => Promise<KmsUnderTest>): void {
  describe(`encrypted buckets on a real MiniOzoneCluster with ${name} as its key provider`, () => {
    let kms: KmsUnderTest;
    let admin: KmsClient;
    let cluster: RealOzoneCluster;
    let alice: OzoneClient;
    let providerPath: string;
    const layout = { chunkSizeBytes: 256 * KiB, blockSizeBytes: 1 * MiB };

    const clientAs = (user: string) =>
      createOzoneClient({
        omAddress: cluster.omGrpcAddress,
        userName: user,
        properties: { 'hadoop.security.key.provider.path': providerPath },
        config: layout,
      });

    beforeAll(async () => {
      kms = await startKms();
      providerPath = `kms://http@${kms.url.replace(/^http:\/\//, '')}`;
      admin = new KmsClient({ url: kms.url, user: 'admin' });
      await admin.createKey(BUCKET_KEY);
      cluster = await startRealOzoneCluster({
        datanodes: 3,
        configuration: {
          'hadoop.security.key.provider.path': providerPath,
          'ozone.scm.block.size': '1MB',
          // The OM's KMS client keeps pre-made data keys per bucket key (500 by default, 12 h);
          // a short queue that expires lets a rolled key's new version reach new keys in seconds.
          'hadoop.security.kms.client.encrypted.key.cache.size': '4',
          'hadoop.security.kms.client.encrypted.key.cache.expiry': '1000',
        },
      });
      alice = clientAs('alice');
      await alice.createVolume(VOLUME);
      await alice.createBucket(VOLUME, 'enc', { encryptionKey: BUCKET_KEY });
      await alice.createBucket(VOLUME, 'plain');
    });

    afterAll(async () => {
      alice?.close();
      await cluster?.stop();
      await admin?.close();
      await kms?.close();
    });

    const data = randomBytes(2 * MiB + 300 * KiB + 7); // three blocks of 1 MiB, chunks of 256 KiB

    it("fastpath writes, Ozone's Java client reads the same plaintext, the datanodes hold ciphertext", async () => {
      await alice.writeKey(VOLUME, 'enc', 'from-fastpath', data);
      expect((await alice.getBucket(VOLUME, 'enc')).encryptionKeyName).toBe(BUCKET_KEY);
      const details = await alice.getKeyInfo(VOLUME, 'enc', 'from-fastpath');
      expect(details.encryption).toEqual({ keyName: BUCKET_KEY, keyVersionName: `${BUCKET_KEY}@0` });
      expect(details.blocks.length).toBe(3);
      const java = await cluster.readKeyWithJava(VOLUME, 'enc', 'from-fastpath');
      expect(java).toEqual({ bytesRead: data.length, sha256: sha256(data) });
      for (const block of details.blocks) {
        const plain = data.subarray(block.offsetInKey, block.offsetInKey + block.lengthBytes);
        for (const dn of block.datanodes) {
          const stored = (await blockFile(cluster, dn.uuid, block.localId)).subarray(0, block.lengthBytes);
          expect(stored.length).toBe(plain.length);
          expect(stored.equals(plain)).toBe(false);
          expect(stored.includes(plain.subarray(1000, 1064))).toBe(false);
        }
      }
      expect((await alice.readKey(VOLUME, 'enc', 'from-fastpath')).equals(data)).toBe(true);
    });

    it("Ozone's Java client writes, fastpath reads the same plaintext", async () => {
      const size = 2 * MiB + 12_345;
      const [written] = await cluster.writeKeys([
        { volume: VOLUME, bucket: 'enc', key: 'from-java', size, seed: 7, chunkSizeBytes: 256 * KiB },
      ]);
      const expected = contractKeyBytes(size, 7);
      expect(written?.sha256).toBe(sha256(expected));
      expect((await alice.getKeyInfo(VOLUME, 'enc', 'from-java')).encryption?.keyName).toBe(BUCKET_KEY);
      const got = await alice.readKey(VOLUME, 'enc', 'from-java');
      expect(sha256(got)).toBe(sha256(expected));
      const firstBlock = (await alice.getKeyInfo(VOLUME, 'enc', 'from-java')).blocks[0];
      const stored = await blockFile(
        cluster,
        firstBlock?.datanodes[0]?.uuid as string,
        firstBlock?.localId as bigint,
      );
      expect(stored.subarray(0, 4096).equals(expected.subarray(0, 4096))).toBe(false);
    });

    it('positional reads at random offsets across chunk and block edges, on both writers’ keys', async () => {
      const javaBytes = contractKeyBytes(2 * MiB + 12_345, 7);
      for (const [key, plain] of [
        ['from-fastpath', data],
        ['from-java', javaBytes],
      ] as const) {
        const stream = await alice.openKey(VOLUME, 'enc', key);
        try {
          const edges = [
            0,
            15,
            16,
            256 * KiB - 1,
            256 * KiB,
            MiB - 9,
            MiB,
            MiB + 1,
            2 * MiB - 1,
            plain.length - 1,
          ];
          const ranges: Array<[number, number]> = edges.map((e) => [Math.max(0, e - 5), 23]);
          for (let i = 0; i < 40; i++) {
            const p = Math.floor(Math.random() * plain.length);
            ranges.push([p, 1 + Math.floor(Math.random() * Math.min(600 * KiB, plain.length - p))]);
          }
          for (const [p, n] of ranges) {
            const len = Math.min(n, plain.length - p);
            expect((await stream.readFully(p, len)).equals(plain.subarray(p, p + len))).toBe(true);
          }
        } finally {
          stream.close();
        }
      }
    });

    it('a user without DECRYPT_EEK gets the KMS 403 as ERR_OZONE_KMS_ACCESS_DENIED and no plaintext; its write commits nothing', async () => {
      const mallory = clientAs('mallory');
      try {
        await expect(mallory.readKey(VOLUME, 'enc', 'from-fastpath')).rejects.toMatchObject({
          code: 'ERR_OZONE_KMS_ACCESS_DENIED',
          kmsCode: 'ERR_KMS_ACCESS_DENIED',
        });
        await expect(mallory.writeKey(VOLUME, 'enc', 'by-mallory', randomBytes(100))).rejects.toMatchObject({
          code: 'ERR_OZONE_KMS_ACCESS_DENIED',
        });
        expect(await cluster.lookupKey(VOLUME, 'enc', 'by-mallory')).toEqual({ found: false });
      } finally {
        mallory.close();
      }
    });

    it('a rolled bucket key: old keys still read, new keys take the new version', async () => {
      await admin.rollNewVersion(BUCKET_KEY);
      await admin.invalidateCache(BUCKET_KEY);
      // The OM may still hold one pre-made data key of @0 (its queue expires after 1 s): write
      // keys until one takes @1, bounded.
      const fresh = randomBytes(300 * KiB);
      let rolled: string | undefined;
      for (let i = 0; i < 60 && rolled === undefined; i++) {
        await alice.writeKey(VOLUME, 'enc', `after-roll-${i}`, fresh);
        const version = (await alice.getKeyInfo(VOLUME, 'enc', `after-roll-${i}`)).encryption?.keyVersionName;
        if (version === `${BUCKET_KEY}@1`) rolled = `after-roll-${i}`;
        else expect(version).toBe(`${BUCKET_KEY}@0`);
      }
      expect(rolled).toBeDefined();
      expect((await alice.readKey(VOLUME, 'enc', rolled as string)).equals(fresh)).toBe(true);
      expect(await cluster.readKeyWithJava(VOLUME, 'enc', rolled as string)).toEqual({
        bytesRead: fresh.length,
        sha256: sha256(fresh),
      });
      expect((await alice.getKeyInfo(VOLUME, 'enc', 'from-fastpath')).encryption?.keyVersionName).toBe(
        `${BUCKET_KEY}@0`,
      );
      expect((await alice.readKey(VOLUME, 'enc', 'from-fastpath')).equals(data)).toBe(true);
      expect((await cluster.readKeyWithJava(VOLUME, 'enc', 'from-java')).bytesRead).toBe(2 * MiB + 12_345);
    });

    it('plain buckets are unchanged: plaintext on the datanodes, read by both clients', async () => {
      const plain = randomBytes(MiB + 5);
      await alice.writeKey(VOLUME, 'plain', 'k', plain);
      const details = await alice.getKeyInfo(VOLUME, 'plain', 'k');
      expect(details.encryption).toBeUndefined();
      const block = details.blocks[0];
      const stored = await blockFile(cluster, block?.datanodes[0]?.uuid as string, block?.localId as bigint);
      expect(stored.subarray(0, block?.lengthBytes).equals(plain.subarray(0, block?.lengthBytes))).toBe(true);
      expect(await cluster.readKeyWithJava(VOLUME, 'plain', 'k')).toEqual({
        bytesRead: plain.length,
        sha256: sha256(plain),
      });
    });
  });
}

describeEncryptedBuckets('fastpath-kms', startFastpathKms);
describeEncryptedBuckets("Hadoop's KMS", startHadoopsKms);
