import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { measureOmCallCost, OM_CALL_OPS, OM_CALL_TRANSPORTS, omCallCostTable } from './om-call-cost.js';

describe('the om-call-cost probe', () => {
  it('runs every operation over both transports against the embedded cluster and tables them', async () => {
    const results = await measureOmCallCost({
      ops: OM_CALL_OPS,
      transports: OM_CALL_TRANSPORTS,
      rounds: 1,
      windowMs: 300,
      listKeys: 20,
      clientModule: join(__dirname, 'om-call-cost-client.ts'),
      clusterModule: join(__dirname, '../scenarios/ozone-read/embedded-cluster-main.ts'),
    });
    expect(results.size).toBe(OM_CALL_OPS.length * OM_CALL_TRANSPORTS.length);
    for (const [key, rounds] of results) {
      expect(rounds).toHaveLength(1);
      const [f] = rounds;
      expect(key).toBe(`${f!.transport} ${f!.operation}`);
      expect(f!.opsPerSec).toBeGreaterThan(0);
      expect(f!.cpuMicrosPerOp).toBeGreaterThan(0);
      // Every call makes at least its request and its answer.
      expect(f!.bytesPerOp).toBeGreaterThan(100);
    }
    const table = omCallCostTable(results);
    for (const op of OM_CALL_OPS) expect(table).toContain(`| ${op}`);
  }, 120_000);
});
