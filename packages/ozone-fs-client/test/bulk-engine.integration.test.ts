// The bulk engines (`ozone.client.bulk.engine`) give the same bytes and checksums: each writes keys
// in pieces of every kind of size (large ones copied on the native engine's threads, small ones in
// place, a chunk gathered across writes), and a client on the other engine reads them back with
// every window verified. The write and read suites run on both engines too (embedded-contract).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { loadNativeBulk } from '../src/internal/bulk/bulk-engine.js';
import { runWithoutAddons } from './support/run-without-addons.js';

let cluster: MiniOzoneCluster;
beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3 });
});
afterAll(async () => {
  await cluster?.close();
});

// Writes of 300 KiB (over the native copy's floor), 1 byte and 17 KiB (under it), 5 MiB (across a
// chunk's end): 4 MiB chunks, 16 KiB checksum windows.
const PIECES = [300 * 1024, 1, 17 * 1024, 5 * 1024 * 1024, 300 * 1024, 3 * 1024 * 1024 + 7];

describe('bulk engines', () => {
  const clients: OzoneClient[] = [];
  const client = (engine: 'native' | 'js' | 'auto'): OzoneClient => {
    const c = createOzoneClient({
      omAddress: cluster.omAddress,
      userName: 'alice',
      config: { bulkEngine: engine, checksumType: 'CRC32' },
    });
    clients.push(c);
    return c;
  };
  afterAll(() => clients.forEach((c) => c.close()));

  it('the default is the native engine where its addon is built, else JS', () => {
    expect(client('auto').bulkEngine).toBe(loadNativeBulk().available ? 'native' : 'js');
    expect(client('js').bulkEngine).toBe('js');
  });

  it('a key written on either engine reads back, every window verified, on the other', async () => {
    const engines = loadNativeBulk().available ? (['native', 'js'] as const) : (['js'] as const);
    const admin = client('js');
    await admin.createVolume('bulk');
    await admin.createBucket('bulk', 'keys');
    for (const writer of engines) {
      const data = randomBytes(PIECES.reduce((a, b) => a + b, 0));
      const key = await client(writer).createKey('bulk', 'keys', `by-${writer}`);
      let at = 0;
      for (const n of PIECES) {
        await key.write(data.subarray(at, at + n));
        at += n;
      }
      await key.close();
      for (const reader of engines) {
        const stream = await client(reader).openKey('bulk', 'keys', `by-${writer}`, { verifyChecksum: true });
        expect((await stream.readFully(0, data.length)).equals(data)).toBe(true);
        expect(stream.stats.bytesVerified).toBeGreaterThanOrEqual(data.length);
      }
    }
  });
});

it('a process whose bulk addon cannot load writes and reads on the JS engine, saying why once, and refuses native by name', async () => {
  const admin = createOzoneClient({ omAddress: cluster.omAddress });
  try {
    await admin.createVolume('nobulk');
    await admin.createBucket('nobulk', 'keys');
  } finally {
    admin.close();
  }
  const { stdout, stderr } = await runWithoutAddons(['fastpath_bulk.node'], 'bulk-engine-writer.ts', [
    cluster.omAddress,
    'nobulk',
    'keys',
  ]);
  const result = JSON.parse(stdout) as {
    engine: string;
    readBack: boolean;
    verified: number;
    nativeRefused: string;
  };
  expect(result).toMatchObject({ engine: 'js', readBack: true });
  expect(result.verified).toBeGreaterThan(5 * 1024 * 1024);
  expect(result.nativeRefused).toMatch(
    /ozone\.client\.bulk\.engine.*the native engine is unavailable.*libisal-dev/,
  );
  expect(stderr.match(/the native bulk engine is unavailable/g)).toHaveLength(1);
});
