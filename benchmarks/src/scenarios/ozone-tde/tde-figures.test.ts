import { describe, expect, it } from '@jest/globals';
import { LatencyRecorder } from '@fastpath/core';
import { BenchmarkCheckError } from '../../harness/index.js';
import {
  againstHadoop,
  caseFigures,
  kmsBoundOverHadoop,
  largeClientFigures,
  tdeGoals,
  type TdeRound,
} from './tde-figures.js';
import type { WindowSample } from './tde-workload.js';

function sample(
  files: number,
  elapsedMs: number,
  latenciesMs: number[],
  extra: Partial<WindowSample> = {},
): WindowSample {
  const r = new LatencyRecorder();
  for (const ms of latenciesMs) r.recordMs(ms);
  return {
    files,
    errors: 0,
    elapsedMs,
    latencies: r.toBase64(),
    fileLatencies: r.toBase64(),
    cpuSeconds: files / 1000,
    ...extra,
  };
}

const round = (readFiles: number, kmsCpu: number | null, clusterCpu: number | null = null): TdeRound => ({
  read: sample(readFiles, 1000, [1, 2, 3, 100]),
  write: sample(readFiles / 4, 1000, [10]),
  kmsReadCpuSeconds: kmsCpu,
  clusterReadCpuSeconds: clusterCpu,
});

describe('ozone-tde figures', () => {
  it('files/s per window, latency over every round, KMS CPU per decrypt (one per file opened)', () => {
    const f = caseFigures('fixed', 'Fixed', [round(400, 0.8), round(200, 0.2), round(300, 0.3)]);
    expect(f.readFilesPerSec).toMatchObject({ median: 300, min: 200, max: 400 });
    expect(f.writeFilesPerSec.median).toBe(75);
    expect(f.open.count).toBe(12);
    expect(f.open.p99Ms).toBeGreaterThanOrEqual(99);
    expect(f.open.p50Ms).toBeLessThan(3.1);
    // 0.8 s / 400, 0.2 s / 200, 0.3 s / 300: 2, 1, 1 ms per decrypt.
    expect(f.kmsCpuMsPerDecrypt).toMatchObject({ median: 1, min: 1, max: 2 });
    expect(f.clientCpuMsPerFile.median).toBeCloseTo(1, 9);
    expect(caseFigures('fixed', 'Fixed', [round(100, null)]).kmsCpuMsPerDecrypt).toBeNull();
    expect(f.clusterCpuMsPerFile).toBeNull();
    expect(f.kmsShareOfReadCpu).toBeNull();
  });

  it("the KMS's share of the CPU per file read, and what a free KMS could add to Hadoop's row", () => {
    // 100 files: KMS 0.1 s, cluster 0.25 s, clients 0.1 s (sample: files / 1000): a share of 2/9.
    const hadoop = caseFigures('hadoop', 'Hadoop', [round(100, 0.1, 0.25), round(100, 0.1, 0.25)]);
    expect(hadoop.clusterCpuMsPerFile?.median).toBeCloseTo(2.5, 9);
    expect(hadoop.kmsShareOfReadCpu?.median).toBeCloseTo(0.1 / 0.45, 9);
    const b = kmsBoundOverHadoop({ hadoop })!;
    expect(b.bound).toBeCloseTo(0.45 / 0.35, 9);
    expect(kmsBoundOverHadoop({ hadoop: caseFigures('hadoop', 'Hadoop', [round(100, 0.1)]) })).toBeNull();
  });

  it('counts errors and keeps the first; a window with nothing done is a failed check, not a zero', () => {
    const bad = { ...round(100, 1), read: sample(100, 1000, [1], { errors: 2, firstError: 'Error: 403' }) };
    const f = caseFigures('hadoop', 'Hadoop', [bad]);
    expect(f).toMatchObject({ errors: 2, firstError: 'Error: 403' });
    expect(() => caseFigures('hadoop', 'Hadoop', [round(0, 1)])).toThrow(BenchmarkCheckError);
    expect(() => caseFigures('hadoop', 'Hadoop', [])).toThrow(BenchmarkCheckError);
  });

  it("each provider against Hadoop's KMS, and the goals", () => {
    const cases = {
      hadoop: caseFigures('hadoop', 'Hadoop', [round(100, 1), round(120, 1)]),
      fixed: caseFigures('fixed', 'Fixed', [round(230, 1), round(250, 1)]),
    };
    const r = againstHadoop(cases, 'fixed')!;
    expect(r.value).toBeCloseTo(240 / 110, 9);
    expect(r.min).toBeCloseTo(230 / 120, 9);
    expect(r.max).toBeCloseTo(250 / 100, 9);
    expect(againstHadoop(cases, 'original')).toBeNull();
    const fast = largeClientFigures({ encryptedMiBPerSec: [80, 90], plainMiBPerSec: [100, 100] });
    expect(fast.ratio.ratio).toBeCloseTo(0.85, 9);
    const java = largeClientFigures({ encryptedMiBPerSec: [90, 90], plainMiBPerSec: [100, 100] });
    const goals = tdeGoals(cases, { largeBytes: 1, fastpath: fast, java });
    expect(goals.map((g) => g.met)).toEqual([true, false]);
    expect(
      tdeGoals({ fixed: cases.fixed }, { largeBytes: 1, fastpath: fast, java: null }).map((g) => g.met),
    ).toEqual([null, null]);
  });
});
