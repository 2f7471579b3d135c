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
  });
});
