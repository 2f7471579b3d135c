// A client process in which the native addon cannot load (as on a machine where it was not
// built): short-circuit is on in its settings and the datanodes serve their sockets, yet every
// read goes over gRPC, and the reason is logged once for the process, not once per client.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from '@jest/globals';
import { createOzoneClient } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { runWithoutAddons } from './support/run-without-addons.js';

it('falls back to gRPC when the addon cannot load, saying why once per process', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fp-scu-'));
  const template = join(dir, 'dn._PORT.sock');
  await using cluster = await startMiniOzoneCluster({ datanodes: 1, domainSocketPath: template });
  const writer = createOzoneClient({ omAddress: cluster.omAddress });
  try {
    await writer.createVolume('vol');
    await writer.createBucket('vol', 'bkt');
    await writer.writeKey('vol', 'bkt', 'k', contractKeyBytes(300_000, 8));
  } finally {
    writer.close();
  }
  cluster.resetCounters();
  const { stdout, stderr } = await runWithoutAddons(['fastpath_unix_fd.node'], 'short-circuit-reader.ts', [
    cluster.omAddress,
    template,
    'vol',
    'bkt',
    'k',
  ]);
  const results = JSON.parse(stdout) as Array<{
    sha256: string;
    stats: { shortCircuitGetBlocks: number; readChunkCalls: number; shortCircuitFallbacks: number };
  }>;
  expect(results).toHaveLength(2);
  for (const r of results) {
    expect(r.sha256).toBe(createHash('sha256').update(contractKeyBytes(300_000, 8)).digest('hex'));
    expect(r.stats).toMatchObject({ shortCircuitGetBlocks: 0, shortCircuitFallbacks: 0 });
    expect(r.stats.readChunkCalls).toBeGreaterThan(0);
  }
  expect(cluster.counters()[0]?.shortCircuitRequests).toBe(0);
  const lines = stderr.split('\n').filter((l) => l.includes('short-circuit reads unavailable'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/cannot load .*fastpath_unix_fd\.node/);
  rmSync(dir, { recursive: true, force: true });
}, 90_000);
