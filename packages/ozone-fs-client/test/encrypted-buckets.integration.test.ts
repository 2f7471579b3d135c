// Encrypted buckets on the embedded mini cluster, with fastpath-kms (in this process) as the key
// provider of the OM and of the client: the OM asks the KMS for an encrypted data key per new key,
// the client asks it to decrypt that key and encrypts/decrypts the data itself.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KmsClient } from '@fastpath/kms-client';
import { createKmsServer, type KmsServer } from '@fastpath/kms-server';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { KeyEncryption } from '../src/internal/crypto/key-encryption.js';
import { parseEcReplicationConfig } from '../src/internal/ec/ec-stripe-layout.js';
import { directOmCalls } from '../src/testing/mini-ec-striper.js';
import { expectEcLayout } from './support/ec-layout.js';

const VOLUME = 'tde';
const LAYOUT = { chunkSizeBytes: 16 * 1024, blockSizeBytes: 64 * 1024, bytesPerChecksum: 8 * 1024 };

let dataDir: string;
let kms: KmsServer;
let providerPath: string;
let admin: KmsClient;
let cluster: MiniOzoneCluster;
let alice: OzoneClient;

function clientAs(user: string, keyProviderPath = providerPath): OzoneClient {
  return createOzoneClient({
    omAddress: cluster.omAddress,
    userName: user,
    properties: { 'hadoop.security.key.provider.path': keyProviderPath },
    config: { ...LAYOUT, warmupEnabled: false },
  });
}

/** The key's bytes as the datanode that holds its first replica stores them. */
function storedBytes(bucket: string, key: string, length: number): Buffer {
  const parts: Buffer[] = [];
  for (let offset = 0; offset < length;) {
    const block = cluster.om.blockAt(VOLUME, bucket, key, offset);
    const index = cluster.datanodes.findIndex((d) => d.uuid === block.datanodes[0]);
    const file = join(
      cluster.dir,
      `datanode-${index}`,
      'containers',
      block.containerId,
      'chunks',
      `${block.localId}.block`,
    );
    parts.push(readFileSync(file).subarray(0, block.length));
    offset += block.length;
  }
  return Buffer.concat(parts);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'fastpath-tde-kms-'));
  kms = await createKmsServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    scrypt: { logN: 10, r: 8, p: 1 },
    // The OM's user makes data keys; readers and writers decrypt them; mallory may do neither.
    acls: {
      'default.key.acl.MANAGEMENT': 'admin',
      'default.key.acl.READ': '*',
      'default.key.acl.GENERATE_EEK': 'om',
      'default.key.acl.DECRYPT_EEK': 'alice,bob',
    },
  });
  const url = await kms.listen();
  providerPath = `kms://http@${url.replace(/^http:\/\//, '')}/kms`;
  admin = new KmsClient({ url: `${url}/kms`, user: 'admin' });
  await admin.createKey('bk1');
  await admin.createKey('bk256', { length: 256 });
  cluster = await startMiniOzoneCluster({
    // Five for the erasure-coded key (rs-3-2); replicated blocks go to the first three.
    datanodes: 5,
    omConfiguration: { 'hadoop.security.key.provider.path': providerPath },
  });
  alice = clientAs('alice');
  await alice.createVolume(VOLUME);
  await alice.createBucket(VOLUME, 'enc', { encryptionKey: 'bk1' });
  await alice.createBucket(VOLUME, 'enc256', { encryptionKey: 'bk256' });
  await alice.createBucket(VOLUME, 'plain');
}, 120_000);

afterAll(async () => {
  alice?.close();
  await cluster?.close();
  await admin?.close();
  await kms?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('encrypted buckets on the mini cluster with fastpath-kms', () => {
  const data = randomBytes(200_001); // three blocks and a bit, chunks of 16 KiB

  it('round trip: the OM stores FileEncryptionInfo, the datanodes hold ciphertext, the client reads the plaintext', async () => {
    const before = cluster.om.encryption?.generatedKeys ?? 0;
    await alice.writeKey(VOLUME, 'enc', 'k1', data);
    expect(cluster.om.encryption?.generatedKeys).toBe(before + 1);
    expect((await alice.getBucket(VOLUME, 'enc')).encryptionKeyName).toBe('bk1');
    expect((await alice.getKeyInfo(VOLUME, 'enc', 'k1')).encryption).toEqual({
      keyName: 'bk1',
      keyVersionName: 'bk1@0',
    });
    const stored = storedBytes('enc', 'k1', data.length);
    expect(stored.length).toBe(data.length);
    expect(stored.equals(data)).toBe(false);
    expect(stored.includes(data.subarray(100_000, 100_032))).toBe(false);
    // Checksums are over the ciphertext: a verifying read passes, and so does one that does not verify.
    expect((await alice.readKey(VOLUME, 'enc', 'k1')).equals(data)).toBe(true);
    expect((await alice.readKey(VOLUME, 'enc', 'k1', { verifyChecksum: false })).equals(data)).toBe(true);
  });

  it('an erasure-coded key: its cells and parity are of the ciphertext, as Java encrypts before its EC writer, and it reads back', async () => {
    const small = randomBytes(30_001);
    await alice.writeKey(VOLUME, 'enc', 'ec', small, { replication: 'rs-3-2-1024k' });
    const om = directOmCalls(cluster.omAddress);
    const encryption = new KeyEncryption(providerPath, { user: 'alice' });
    try {
      const info = (
        await om.submit('LookupKey', {
          lookupKeyRequest: { keyArgs: { volumeName: VOLUME, bucketName: 'enc', keyName: 'ec' } },
        })
      ).lookupKeyResponse!.keyInfo!;
      expect(info.fileEncryptionInfo).toBeTruthy();
      // The key's own data key and IV, from offset 0: what the writer encrypted with.
      const ciphertext = (await encryption.encryptorFor(info))!.update(small);
      expect(ciphertext.equals(small)).toBe(false);
      await expectEcLayout(cluster, info, ciphertext, parseEcReplicationConfig('rs-3-2-1024k'), {
        stripeChecksums: true,
      });
      expect((await alice.readKey(VOLUME, 'enc', 'ec')).equals(small)).toBe(true);
    } finally {
      om.close();
      await encryption.close();
    }
  });

  it('a 256-bit bucket key gives AES-256 data keys', async () => {
    const small = randomBytes(40_000);
    await alice.writeKey(VOLUME, 'enc256', 'k', small);
    expect(storedBytes('enc256', 'k', small.length).equals(small)).toBe(false);
    expect((await alice.readKey(VOLUME, 'enc256', 'k')).equals(small)).toBe(true);
  });

  it('unencrypted buckets are unchanged: plaintext on the datanodes, no KMS call', async () => {
    const before = cluster.om.encryption?.generatedKeys;
    await alice.writeKey(VOLUME, 'plain', 'k1', data);
    expect(cluster.om.encryption?.generatedKeys).toBe(before);
    expect((await alice.getBucket(VOLUME, 'plain')).encryptionKeyName).toBeUndefined();
    expect((await alice.getKeyInfo(VOLUME, 'plain', 'k1')).encryption).toBeUndefined();
    expect(storedBytes('plain', 'k1', data.length).equals(data)).toBe(true);
    // A client without any key provider reads plain keys as before.
    const noKms = createOzoneClient({ omAddress: cluster.omAddress, userName: 'carol', config: LAYOUT });
    try {
      expect((await noKms.readKey(VOLUME, 'plain', 'k1')).equals(data)).toBe(true);
    } finally {
      noKms.close();
    }
  });

  it('positional reads at any offset, across 16-byte blocks, chunks and blocks', async () => {
    const stream = await alice.openKey(VOLUME, 'enc', 'k1');
    try {
      const edges = [
        0, 1, 15, 16, 17, 16_383, 16_384, 16_385, 65_535, 65_536, 65_537, 131_071, 196_608, 200_000,
      ];
      const ranges: Array<[number, number]> = edges.flatMap((e) => [
        [e, 1],
        [Math.max(0, e - 7), 19],
      ]);
      for (let i = 0; i < 100; i++) {
        const position = Math.floor(Math.random() * data.length);
        ranges.push([position, 1 + Math.floor(Math.random() * Math.min(70_000, data.length - position))]);
      }
      // Concurrent reads on one stream decrypt independently.
      const got = await Promise.all(
        ranges.map(([p, n]) => stream.readFully(p, Math.min(n, data.length - p))),
      );
      ranges.forEach(([p, n], i) =>
        expect(got[i]?.equals(data.subarray(p, p + Math.min(n, data.length - p)))).toBe(true),
      );
    } finally {
      stream.close();
    }
  });

  it('a reader without DECRYPT_EEK gets the KMS 403 as ERR_OZONE_KMS_ACCESS_DENIED, and its writes commit nothing', async () => {
    const mallory = clientAs('mallory');
    try {
      await expect(mallory.openKey(VOLUME, 'enc', 'k1')).rejects.toMatchObject({
        code: 'ERR_OZONE_KMS_ACCESS_DENIED',
        retriable: false,
        keyName: 'bk1',
        kmsCode: 'ERR_KMS_ACCESS_DENIED',
      });
      await expect(mallory.readKey(VOLUME, 'enc', 'k1')).rejects.toMatchObject({
        code: 'ERR_OZONE_KMS_ACCESS_DENIED',
      });
      const written = cluster.counters().reduce((n, c) => n + c.bytesWritten, 0);
      await expect(mallory.writeKey(VOLUME, 'enc', 'by-mallory', randomBytes(1000))).rejects.toMatchObject({
        code: 'ERR_OZONE_KMS_ACCESS_DENIED',
      });
      expect(cluster.counters().reduce((n, c) => n + c.bytesWritten, 0)).toBe(written);
      await expect(alice.getKeyInfo(VOLUME, 'enc', 'by-mallory')).rejects.toMatchObject({
        code: 'ERR_OZONE_KEY_NOT_FOUND',
      });
    } finally {
      mallory.close();
    }
  });

  it('a rolled bucket key: old keys still read, new keys use the new version', async () => {
    const old = randomBytes(30_000);
    await alice.writeKey(VOLUME, 'enc', 'before-roll', old);
    await admin.rollNewVersion('bk1');
    // As Ozone's TDE guide says after a roll: pre-generated data keys are dropped.
    await admin.invalidateCache('bk1');
    const fresh = randomBytes(30_000);
    await alice.writeKey(VOLUME, 'enc', 'after-roll', fresh);
    expect((await alice.getKeyInfo(VOLUME, 'enc', 'before-roll')).encryption?.keyVersionName).toBe('bk1@0');
    expect((await alice.getKeyInfo(VOLUME, 'enc', 'after-roll')).encryption?.keyVersionName).toBe('bk1@1');
    expect((await alice.readKey(VOLUME, 'enc', 'before-roll')).equals(old)).toBe(true);
    expect((await alice.readKey(VOLUME, 'enc', 'after-roll')).equals(fresh)).toBe(true);
    expect((await alice.readKey(VOLUME, 'enc', 'k1')).equals(data)).toBe(true);
  });

  it("the ';' HA provider form: a host that cannot be reached is passed over", async () => {
    const port = kms.address?.port as number;
    // Nothing listens on 127.0.0.2 at that port: every open that starts there moves on.
    const ha = clientAs('bob', `kms://http@127.0.0.2;127.0.0.1:${port}/kms`);
    try {
      for (let i = 0; i < 4; i++) expect((await ha.readKey(VOLUME, 'enc', 'k1')).equals(data)).toBe(true);
    } finally {
      ha.close();
    }
  });

  it('a KMS that cannot be reached is ERR_OZONE_KMS_UNREACHABLE (retriable); no provider is ERR_OZONE_KMS_NOT_CONFIGURED', async () => {
    const down = clientAs('bob', 'kms://http@127.0.0.2;127.0.0.3:1/kms');
    const none = createOzoneClient({ omAddress: cluster.omAddress, userName: 'bob', config: LAYOUT });
    try {
      await expect(down.openKey(VOLUME, 'enc', 'k1')).rejects.toMatchObject({
        code: 'ERR_OZONE_KMS_UNREACHABLE',
        retriable: true,
      });
      await expect(none.openKey(VOLUME, 'enc', 'k1')).rejects.toMatchObject({
        code: 'ERR_OZONE_KMS_NOT_CONFIGURED',
      });
      await expect(none.writeKey(VOLUME, 'enc', 'never', randomBytes(10))).rejects.toMatchObject({
        code: 'ERR_OZONE_KMS_NOT_CONFIGURED',
      });
    } finally {
      down.close();
      none.close();
    }
  });

  it("the OM refuses a bucket key the KMS does not have, as Ozone's does", async () => {
    await expect(alice.createBucket(VOLUME, 'nokey', { encryptionKey: 'no-such-key' })).rejects.toMatchObject(
      {
        status: 'BUCKET_ENCRYPTION_KEY_NOT_FOUND',
      },
    );
  });
});

describe('an OM without a key provider', () => {
  it('refuses encrypted buckets with INVALID_KMS_PROVIDER', async () => {
    await using plain = await startMiniOzoneCluster({ datanodes: 1 });
    const client = createOzoneClient({ omAddress: plain.omAddress, userName: 'alice', config: LAYOUT });
    try {
      await client.createVolume(VOLUME);
      await expect(client.createBucket(VOLUME, 'enc', { encryptionKey: 'bk1' })).rejects.toMatchObject({
        status: 'INVALID_KMS_PROVIDER',
      });
    } finally {
      client.close();
    }
  });
});
