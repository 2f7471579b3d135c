// listKeys of a file-system-optimized bucket on the embedded cluster, by the OM calls it makes:
// a caller paging a large directory by startAfter gets every key once, with ListStatusLight (no
// full ListStatus) and the bucket's layout asked once; a bucket deleted and made again with another
// layout is listed by its new layout.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';

const VOLUME = 'listing';
const KEYS = 1200;

describe('listKeys of a file-system-optimized bucket', () => {
  let cluster: MiniOzoneCluster;
  let client: OzoneClient;
  const asked = (command: string): number => cluster.om.requests.get(command) ?? 0;

  async function createEmpty(bucket: string, key: string): Promise<void> {
    const out = await client.createKey(VOLUME, bucket, key, { sizeBytes: 0 });
    await out.close();
  }

  /** Every key under `prefix`, paged by `count` as a caller pages a directory. */
  async function pageAll(bucket: string, prefix: string, count: number): Promise<string[]> {
    const all: string[] = [];
    for (let startAfter: string | undefined; ;) {
      const page = await client.listKeys(VOLUME, bucket, {
        prefix,
        count,
        ...(startAfter ? { startAfter } : {}),
      });
      if (page.length === 0) return all;
      all.push(...page.map((k) => k.name));
      startAfter = page[page.length - 1]!.name;
    }
  }

  beforeAll(async () => {
    cluster = await startMiniOzoneCluster({ datanodes: 1 });
    client = createOzoneClient({ omAddress: cluster.omAddress, userName: 'lister' });
    await client.createVolume(VOLUME);
    await client.createBucket(VOLUME, 'fso', { layout: 'FILE_SYSTEM_OPTIMIZED' });
    for (let i = 0; i < KEYS; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => createEmpty('fso', `big/k-${String(i + j).padStart(5, '0')}`)),
      );
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await cluster?.close();
  });

  it('pages a large directory by startAfter: every key once, ListStatusLight only, the layout asked once', async () => {
    const infoBefore = asked('InfoBucket');
    const lightBefore = asked('ListStatusLight');
    const keys = await pageAll('fso', 'big/', 500);
    const expected = [
      'big/',
      ...Array.from({ length: KEYS }, (_, i) => `big/k-${String(i).padStart(5, '0')}`),
    ];
    expect(keys).toEqual(expected);
    expect(asked('InfoBucket') - infoBefore).toBeLessThanOrEqual(1);
    expect(asked('ListStatus')).toBe(0);
    // Three pages of 500 and the empty one: a call per page, one more where a page ends a
    // directory, none re-reading the directory from its start.
    expect(asked('ListStatusLight') - lightBefore).toBeLessThanOrEqual(8);
    const [first] = await client.listKeys(VOLUME, 'fso', { prefix: 'big/k-00007', count: 1 });
    expect(first).toMatchObject({ volume: VOLUME, bucket: 'fso', name: 'big/k-00007', sizeBytes: 0 });
    expect(first!.creationTimeMs).toBeGreaterThan(0);
    expect(first!.replicationType).toBe('RATIS');
  });

  it('lists a bucket made again under the same name by its new layout', async () => {
    await client.createBucket(VOLUME, 'again', { layout: 'FILE_SYSTEM_OPTIMIZED' });
    await createEmpty('again', 'd/x');
    expect((await client.listKeys(VOLUME, 'again')).map((k) => k.name)).toEqual(['d/', 'd/x']);
    await client.deleteKey(VOLUME, 'again', 'd', { recursive: true });
    await client.deleteBucket(VOLUME, 'again');
    await client.createBucket(VOLUME, 'again', { layout: 'OBJECT_STORE' });
    await createEmpty('again', 'd/x');
    // An object-store bucket lists its keys by ListKeys: no directory entries.
    expect((await client.listKeys(VOLUME, 'again')).map((k) => k.name)).toEqual(['d/x']);
  });
});
