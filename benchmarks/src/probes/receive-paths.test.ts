import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { measureReceivePaths, RECEIVE_PATHS, receivePathsTable } from './receive-paths.js';

describe('the receive-paths probe', () => {
  it('takes every byte the three ways, each receiver in a process of its own, and tables them', async () => {
    const results = await measureReceivePaths({
      mib: 16,
      rounds: 1,
      peer: join(__dirname, 'receive-paths-peer.ts'),
    });
    expect([...results.keys()]).toEqual([...RECEIVE_PATHS]);
    for (const [path, rounds] of results) {
      expect(rounds).toHaveLength(1);
      expect(rounds[0]).toMatchObject({ path, bytes: 16 * 1048576 });
      expect(rounds[0]!.cpuMicrosPerMib).toBeGreaterThan(0);
    }
    const table = receivePathsTable(results);
    for (const path of RECEIVE_PATHS) expect(table).toContain(`| ${path}`);
  }, 60_000);
});
