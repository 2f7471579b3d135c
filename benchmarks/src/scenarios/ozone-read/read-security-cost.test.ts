import { describe, expect, it } from '@jest/globals';
import type { CaseResult } from './ozone-read-scenario.js';
import { readerVariant, readLevelRounds } from './read-security-cost.js';
import { securityCost, securityCostGoals } from './security-cost.js';

const result = (
  over: Partial<CaseResult>,
  rounds: Array<{ round: number; ops: number; cpu: number }>,
): CaseResult =>
  ({
    id: 'x',
    reader: 'fastpath',
    row: 'grpc-1m',
    column: 'on',
    aligned: false,
    transport: 'socket-stream-pool',
    readWorkers: 0,
    readBlock: false,
    ...over,
    rounds: rounds.map((r) => ({ round: r.round, figures: { opsPerSec: r.ops, cpuMicrosPerOp: r.cpu } })),
  }) as unknown as CaseResult;

describe('ozone-read security cost', () => {
  it("names fastpath's variants; the read path and column are the operation both readers share", () => {
    expect(readerVariant({ reader: 'fastpath', transport: 'socket-stream-pool', readWorkers: 0 })).toBe(
      'fastpath',
    );
    expect(readerVariant({ reader: 'fastpath', transport: 'call-per-request', readWorkers: 2 })).toBe(
      'fastpath, a grpc-js call per request, 2 read worker threads',
    );
    expect(readerVariant({ reader: 'java', transport: 'socket-stream-pool', readWorkers: 0 })).toBe('java');
    const rounds = readLevelRounds([
      result({ security: 'kerberos' }, [
        { round: 1, ops: 90, cpu: 110 },
        { round: 0, ops: 80, cpu: 120 },
      ]),
      result({ reader: 's3' }, [{ round: 0, ops: 1, cpu: 1 }]),
      result({ reader: 'java', column: 'off-global' }, []),
    ]);
    expect(rounds).toEqual([
      {
        client: 'fastpath',
        operation: 'gRPC, 1 MiB bytes per checksum, verify on',
        level: 'kerberos',
        throughput: [80, 90],
        cpuPerOp: [120, 110],
      },
    ]);
  });

  it("holds fastpath's secure ÷ unsecured against Java's on the same read path", () => {
    const cost = securityCost(
      readLevelRounds([
        result({}, [{ round: 0, ops: 1000, cpu: 100 }]),
        result({ security: 'kerberos' }, [{ round: 0, ops: 900, cpu: 110 }]),
        result({ reader: 'java' }, [{ round: 0, ops: 500, cpu: 200 }]),
        result({ reader: 'java', security: 'kerberos' }, [{ round: 0, ops: 400, cpu: 240 }]),
      ]),
    );
    expect(cost.map((c) => [c.client, c.throughput.ratio, c.cpuPerOp.ratio])).toEqual([
      ['fastpath', 0.9, 1.1],
      ['java', 0.8, 1.2],
    ]);
    expect(securityCostGoals(cost, { client: 'java', label: 'Java' }, (c) => c).map((g) => g.met)).toEqual([
      true,
      true,
    ]);
  });
});
