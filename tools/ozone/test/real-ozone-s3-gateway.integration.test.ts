import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { InvalidOptionError } from '@fastpath/core';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { startRealOzoneCluster, type RealOzoneCluster, type RealS3Gateway } from '@fastpath/ozone-fixture';
import { canConnect } from './support/can-connect.js';

// One lean cluster (one datanode) with Ozone's S3 gateway in its JVM, read by the AWS SDK.
jest.setTimeout(600_000);

const MiB = 1024 * 1024;
const SIZE = 5 * MiB + 3; // two 4 MiB chunks' worth of a key: ranges inside and across a chunk edge
const SEED = 11;

describe("Ozone's S3 gateway beside a real MiniOzoneCluster", () => {
  let cluster: RealOzoneCluster;
  let gateway: RealS3Gateway;
  let s3: S3Client;

  beforeAll(async () => {
    cluster = await startRealOzoneCluster({ datanodes: 1, s3Gateway: true });
    gateway = cluster.s3Gateway!;
    await cluster.writeKeys([
      { volume: 'vol1', bucket: 'source', key: 'k', size: SIZE, seed: SEED, bytesPerChecksum: 16_384 },
      { volume: gateway.volume, bucket: 'own', key: 'dir/k2', size: 100_000, seed: 12 },
    ]);
    await cluster.linkS3Bucket({ name: 'linked', volume: 'vol1', bucket: 'source' });
    s3 = new S3Client({
      ...gateway.clientConfig(),
      maxAttempts: 1,
      // Every request is bounded: a gateway that never answers fails the test with a TimeoutError.
      requestHandler: { requestTimeout: 60_000, throwOnRequestTimeout: true },
    });
  });

  afterAll(async () => {
    s3?.destroy();
    await cluster?.stop();
  });

  it('listens on loopback and names its volume', async () => {
    expect(gateway.httpAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(gateway.endpoint).toBe(`http://${gateway.httpAddress}`);
    expect(gateway.volume).toBe('s3v');
    expect(await canConnect(gateway.httpAddress)).toBe(true);
    expect(await cluster.startS3Gateway()).toBe(gateway); // already running: the same gateway
  });

  it('reads ranges of a key of another volume through a bucket link, byte for byte', async () => {
    const ranges: Array<[number, number]> = [
      [0, 65_536],
      [4 * MiB - 100, 65_536], // across the chunk edge
      [SIZE - 1000, 1000], // the last bytes
      [123_457, 1],
    ];
    for (const [offset, length] of ranges) {
      const last = offset + length - 1;
      const answer = await s3.send(
        new GetObjectCommand({ Bucket: 'linked', Key: 'k', Range: `bytes=${offset}-${last}` }),
      );
      expect(answer.$metadata.httpStatusCode).toBe(206);
      expect(answer.ContentRange).toBe(`bytes ${offset}-${last}/${SIZE}`);
      const body = Buffer.from(await answer.Body!.transformToByteArray());
      expect(body.length).toBe(length);
      expect(body.equals(contractKeyBytes(length, SEED, offset))).toBe(true);
    }
  });

  it("reads a key of the gateway's own volume whole", async () => {
    const answer = await s3.send(new GetObjectCommand({ Bucket: 'own', Key: 'dir/k2' }));
    const body = Buffer.from(await answer.Body!.transformToByteArray());
    expect(body.equals(contractKeyBytes(100_000, 12))).toBe(true);
  });

  it('answers a range past the end with InvalidRange, an absent key with NoSuchKey, an absent bucket with NoSuchBucket', async () => {
    await expect(
      s3.send(new GetObjectCommand({ Bucket: 'linked', Key: 'k', Range: `bytes=${SIZE + 10}-${SIZE + 20}` })),
    ).rejects.toMatchObject({ name: 'InvalidRange', $metadata: { httpStatusCode: 416 } });
    await expect(s3.send(new GetObjectCommand({ Bucket: 'linked', Key: 'absent' }))).rejects.toMatchObject({
      name: 'NoSuchKey',
      $metadata: { httpStatusCode: 404 },
    });
    await expect(s3.send(new GetObjectCommand({ Bucket: 'absent', Key: 'k' }))).rejects.toMatchObject({
      name: 'NoSuchBucket',
      $metadata: { httpStatusCode: 404 },
    });
  });

  it('refuses a link with a bad name before sending it', async () => {
    const refused = cluster.linkS3Bucket({ name: 'Bad_Name', volume: 'vol1', bucket: 'source' });
    await expect(refused).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(refused).rejects.toMatchObject({ option: 'name' });
  });

  it('stops with the cluster', async () => {
    await cluster.stop();
    expect(await canConnect(gateway.httpAddress)).toBe(false);
  });
});
