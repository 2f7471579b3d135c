import { describe, expect, it } from '@jest/globals';
import { perOpFigures, withinPrediction, type WindowCounts } from './read-accounting.js';

const KiB = 1024;
const base: WindowCounts = {
  ops: 1000,
  errors: 0,
  wrongBytes: 0,
  checkedOps: 1000,
  measuredMs: 2000,
  bytesRequested: 1000 * 64 * KiB,
  bytesPredicted: 1000 * 80 * KiB,
  client: {
    bytesFetched: 1000 * 80 * KiB,
    bytesVerified: 1000 * 80 * KiB,
    bytesFromCache: 0,
    readChunkCalls: 1016,
  },
  datanodeBytesSent: 1000 * 80 * KiB,
  cpuSeconds: 0.5,
};

describe('per-op accounting', () => {
  it('turns window totals into per-read figures, rates and CPU', () => {
    const f = perOpFigures(base);
    expect(f.opsPerSec).toBe(500);
    expect(f.bytesRequestedPerOp).toBe(64 * KiB);
    expect(f.bytesPredictedPerOp).toBe(80 * KiB);
    expect(f.clientFetchedPerOp).toBe(80 * KiB);
    expect(f.clientVerifiedPerOp).toBe(80 * KiB);
    expect(f.datanodeSentPerOp).toBe(80 * KiB);
    expect(f.wideningFactor).toBe(1.25);
    expect(f.clientDeviation).toBe(0);
    expect(f.datanodeDeviation).toBe(0);
    expect(f.cpuMicrosPerOp).toBe(500);
    expect(f.cpuCores).toBe(0.25);
    expect(withinPrediction(f, 0.01)).toBe(true);
  });

  it('gives MiB/s and CPU per MiB of positional reads from the bytes each good read delivered', () => {
    // 1000 reads of 64 KiB in 2 s: 62.5 MiB, 31.25 MiB/s; 0.5 s of CPU over 62.5 MiB: 8000 µs/MiB.
    const f = perOpFigures(base);
    expect(f.mibPerSec).toBe(31.25);
    expect(f.cpuMicrosPerMiB).toBe(8000);
    // Failed reads deliver nothing: 998 good reads of 64 KiB.
    const g = perOpFigures({ ...base, ops: 998, errors: 2 });
    expect(g.mibPerSec).toBeCloseTo((998 * 64) / 1024 / 2, 10);
  });

  it('gives files/s, MiB/s and CPU per MiB of whole-file reads from the bytes they delivered', () => {
    const MiB = 1024 * KiB;
    // 10 whole files of 64 MiB in 2 s (one more failed), 1.28 s of CPU: 5 files/s, 320 MiB/s, 2000 µs/MiB.
    const f = perOpFigures({
      ...base,
      ops: 10,
      errors: 1,
      checkedOps: 10,
      bytesRequested: 11 * 64 * MiB,
      bytesPredicted: 11 * 64 * MiB,
      bytesRead: 10 * 64 * MiB,
      client: null,
      datanodeBytesSent: null,
      cpuSeconds: 1.28,
    });
    expect(f.opsPerSec).toBe(5);
    expect(f.mibPerSec).toBe(320);
    expect(f.cpuMicrosPerMiB).toBe(2000);
    expect(f.cpuMicrosPerOp).toBe(128_000);
    expect(f.bytesRequestedPerOp).toBe(64 * MiB);
  });

  it('shows the datanodes sending more than predicted (a read sent twice) as a deviation', () => {
    const f = perOpFigures({ ...base, datanodeBytesSent: base.datanodeBytesSent! + 8 * 64 * KiB });
    expect(f.datanodeDeviation).toBeCloseTo((8 * 64) / (1000 * 80), 10);
    expect(withinPrediction(f, 0.01)).toBe(true);
    expect(withinPrediction(f, 0.005)).toBe(false);
  });

  it('counts failed and wrong reads in the bytes per read (they fetched too) but not in the rate', () => {
    const f = perOpFigures({
      ...base,
      ops: 998,
      errors: 1,
      wrongBytes: 1,
      bytesPredicted: 1000 * 80 * KiB,
    });
    expect(f.opsPerSec).toBe(499);
    expect(f.bytesPredictedPerOp).toBe(80 * KiB);
    expect(f.clientDeviation).toBe(0);
  });

  it('leaves the counters a reader or cluster does not have as null, and judges the others', () => {
    const f = perOpFigures({ ...base, client: null, datanodeBytesSent: null });
    expect(f.clientFetchedPerOp).toBeNull();
    expect(f.datanodeDeviation).toBeNull();
    expect(f.wideningFactor).toBe(1.25); // from the prediction
    expect(withinPrediction(f, 0)).toBe(true);
  });

  it('gives zeros, not NaN, for an empty window', () => {
    const f = perOpFigures({
      ...base,
      ops: 0,
      checkedOps: 0,
      bytesRequested: 0,
      bytesPredicted: 0,
      client: { bytesFetched: 0, bytesVerified: 0, bytesFromCache: 0, readChunkCalls: 0 },
      datanodeBytesSent: 0,
      measuredMs: 0,
    });
    expect(f.opsPerSec).toBe(0);
    expect(f.bytesPredictedPerOp).toBe(0);
    expect(f.clientDeviation).toBe(0);
    expect(f.cpuMicrosPerOp).toBe(0);
    expect(f.mibPerSec).toBe(0);
    expect(f.cpuMicrosPerMiB).toBe(0);
  });
});
