import { machineTable } from './ozone-write-report.js';
import { compareRow, mibCeiling, type ClientPass } from './ozone-write-results.js';
import { DEFAULT_SHAPES } from './ozone-write-settings.js';

const MiB = 1024 * 1024;

function pass(
  n: number,
  mibPerSec: number,
  cpuMsPerMiB: number,
  extra: Partial<ClientPass> = {},
): ClientPass {
  return {
    pass: n,
    sample: { keys: 16, errors: 0, bytes: 256 * MiB, wallNs: 1e9, cpuNs: 1e9 },
    figures: { mibPerSec, keysPerSec: mibPerSec / 16, p50Ms: 100, p99Ms: 200, cpuMsPerMiB },
    readBack: { verified: 16, failed: 0 },
    crossRead: null,
    ...extra,
  };
}

describe('compareRow', () => {
  it('pairs passes by number and marks the goals met when fastpath is at least as fast for no more CPU', () => {
    const row = compareRow(DEFAULT_SHAPES.parallel, {
      fastpath: { passes: [pass(1, 120, 8), pass(2, 110, 9), pass(3, 130, 7)] },
      java: { passes: [pass(1, 100, 10), pass(2, 100, 10), pass(3, 100, 10)] },
    });
    expect(row.label).toBe('16 writers × 16 MiB');
    expect(row.keysPerPass).toBe(16);
    expect(row.clients.fastpath!.mibPerSec).toMatchObject({ median: 120, min: 110, max: 130 });
    expect(row.ratios!.mibPerSec).toEqual({ ratio: 1.2, min: 1.1, max: 1.3, rounds: 3 });
    expect(row.ratios!.cpuMsPerMiB.ratio).toBeCloseTo(0.8, 10);
    expect(row.goals).toEqual({ throughput: true, cpuPerMiB: true });
    expect(row.problems).toBe(0);
    expect(row.clients.java).toMatchObject({
      keysWritten: 48,
      keysVerified: 48,
      writeErrors: 0,
      crossVerified: null,
    });
  });

  it('marks the goals missed when fastpath is slower or costs more CPU per MiB', () => {
    const row = compareRow(DEFAULT_SHAPES.single, {
      fastpath: { passes: [pass(1, 90, 12)] },
      java: { passes: [pass(1, 100, 10)] },
    });
    expect(row.goals).toEqual({ throughput: false, cpuPerMiB: false });
  });

  it('has no ratios or goals without Java, and counts failed writes and read-backs as problems', () => {
    const row = compareRow(DEFAULT_SHAPES['small-files'], {
      fastpath: {
        passes: [
          pass(1, 50, 5, {
            sample: { keys: 15, errors: 1, bytes: 15 * MiB, wallNs: 1e9, cpuNs: 1e9 },
            readBack: { verified: 15, failed: 1 },
            crossRead: { verified: 14, failed: 1 },
          }),
        ],
        error: 'pass 2: the writer exited',
      },
    });
    expect(row.ratios).toBeUndefined();
    expect(row.goals).toEqual({ throughput: null, cpuPerMiB: null });
    expect(row.problems).toBe(3);
    expect(row.stopped).toEqual({ fastpath: 'pass 2: the writer exited' });
    expect(row.clients.fastpath).toMatchObject({
      writeErrors: 1,
      verifyFailures: 1,
      crossVerified: 14,
      crossFailures: 1,
    });
  });

  it('leaves out of the ratios a pass that only one client measured', () => {
    const row = compareRow(DEFAULT_SHAPES.parallel, {
      fastpath: { passes: [pass(1, 100, 10), pass(2, 300, 10)] },
      java: { passes: [pass(1, 100, 10), { ...pass(2, 1, 1), figures: null }] },
    });
    expect(row.ratios!.mibPerSec).toEqual({ ratio: 1, min: 1, max: 1, rounds: 1 });
  });

  it("reads the cluster's CPU per MiB and the cores busy, and the MiB/s no client could beat on the cores", () => {
    // 256 MiB per pass in a 2 s call: the cluster's 3.84 s of CPU is 15 ms/MiB; client 1 s + 3.84 s over 2 s = 2.42 cores.
    const cluster = { cluster: { cpuMs: 3840, windowMs: 2000 } };
    const row = compareRow(DEFAULT_SHAPES.single, {
      fastpath: { passes: [pass(1, 128, 4, cluster), pass(2, 120, 4)] },
      java: { passes: [pass(1, 100, 8, { cluster: { cpuMs: 5120, windowMs: 4000 } })] },
    });
    // The pass without a reading is left out, not counted as 0.
    expect(row.clients.fastpath!.clusterCpuMsPerMiB).toMatchObject({ median: 15, min: 15, max: 15 });
    expect(row.clients.fastpath!.busyCores!.median).toBeCloseTo(2.42, 10);
    expect(row.clients.java!.clusterCpuMsPerMiB!.median).toBe(20);
    // 2 cores ÷ 15 ms/MiB = 133 MiB/s, 1.33× Java's 100.
    const ceiling = mibCeiling(row, 'fastpath', 2)!;
    expect(ceiling.mibPerSec).toBeCloseTo(133.33, 2);
    expect(ceiling.againstJava).toBeCloseTo(1.3333, 4);
    // Busy past the 2 cores counts as 2: the same 133 MiB/s.
    expect(ceiling.freeClient!.mibPerSec).toBeCloseTo(133.33, 2);
    // Java's pass: its 1 s and the cluster's 5.12 s over 4 s are 1.53 cores, ÷ 20 ms/MiB = 76.5 MiB/s.
    const javaCeiling = mibCeiling(row, 'java', 2)!;
    expect(javaCeiling.freeClient!.mibPerSec).toBeCloseTo(76.5, 6);
    expect(javaCeiling.freeClient!.againstJava).toBeCloseTo(0.765, 6);
    const table = machineTable([row], 2)!;
    expect(table).toMatch(
      /fastpath \(Node\)\s*\|[^|]+\|\s*15\.0 \(15\.0–15\.0\)\s*\|[^|]+\|\s*133\s*\|\s*1\.33×\s*\|\s*1\.33×/,
    );
    expect(table).toMatch(
      /Ozone's Java client\s*\|[^|]+\|\s*20\.0 \(20\.0–20\.0\)\s*\|[^|]+\|\s*100\s*\|\s*1\.00×\s*\|\s*0\.77×/,
    );
    const without = compareRow(DEFAULT_SHAPES.single, { fastpath: { passes: [pass(1, 128, 4)] } });
    expect(mibCeiling(without, 'fastpath', 2)).toBeNull();
    expect(machineTable([without], 2)).toBeNull();
  });
});
