// A warm-up that fails does not fail the client: the CA file is unreadable when the warm-up's TLS
// step reads it (it was readable when the constructor read it for the OM channel), the step fails
// and is ignored, and the datanode channels build their own credentials once the file is back.
import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { currentWarmup } from '@fastpath/client-warmup';
import { createOzoneClient } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';

let cluster: MiniOzoneCluster;
const dir = mkdtempSync(join(tmpdir(), 'fastpath-warmup-failure-'));
beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3, tls: true });
});
afterAll(async () => {
  await cluster?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a failing warm-up', () => {
  it('an unreadable CA file in the warm-up: creation succeeds and the client reads and writes', async () => {
    const caFile = join(dir, 'ca.pem');
    copyFileSync(cluster.caFile as string, caFile);
    const client = createOzoneClient({ omAddress: cluster.omAddress, tls: { caFile } });
    // The warm-up's steps run in later event-loop turns: the file is gone when the TLS step reads it.
    renameSync(caFile, `${caFile}.away`);
    try {
      const outcomes = await (currentWarmup()?.done ?? Promise.resolve([]));
      expect(outcomes.map((o) => [o.name, o.state])).toEqual([
        ['datanode-protocol', 'done'],
        ['checksum', 'done'],
        ['tls-credentials', 'failed'],
      ]);
      renameSync(`${caFile}.away`, caFile);
      await client.createVolume('failvol');
      await client.createBucket('failvol', 'bucket1');
      const data = contractKeyBytes(70_000, 3);
      await client.writeKey('failvol', 'bucket1', 'k', data);
      expect((await client.readKey('failvol', 'bucket1', 'k')).equals(data)).toBe(true);
    } finally {
      client.close();
    }
  });
});
