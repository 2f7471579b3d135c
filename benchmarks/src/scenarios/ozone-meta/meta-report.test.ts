import { describe, expect, it } from '@jest/globals';
import { PROFILE_CATEGORIES, type ProfileCategory } from '../../harness/cpu-profile-summary.js';
import { compareOp, type RoundSample } from './meta-figures.js';
import {
  againstJavaTable,
  ceilingTable,
  checksTable,
  figuresTable,
  profileTable,
  type ProfiledWindow,
} from './meta-report.js';
import type { WindowSample } from './meta-workload.js';

const sample = (ops: number): WindowSample => ({
  ops,
  errors: 0,
  elapsedMs: 1000,
  cpuMs: ops / 10,
  latenciesUs: Array.from({ length: ops }, () => 1000),
});
const once = (ops: number): RoundSample[] => [{ round: 1, sample: sample(ops) }];

describe('ozone-meta tables', () => {
  it('keep their shape without security levels, and get a security column and per-level rows with them', () => {
    const plain = compareOp('lookup', {
      'fastpath-rpc': once(300),
      'fastpath-grpc': once(200),
      java: once(100),
    });
    expect(againstJavaTable([plain]).columns.map((c) => c.header)).not.toContain('security');
    expect(figuresTable([plain], ['fastpath-rpc', 'fastpath-grpc', 'java']).rows).toHaveLength(3);

    const none = { ...plain, security: 'none' as const };
    // On a secure cluster fastpath's gRPC transport does not run: it has no row there.
    const kerberos = {
      ...compareOp('lookup', { 'fastpath-rpc': once(240), java: once(90) }),
      security: 'kerberos' as const,
    };
    const table = againstJavaTable([none, kerberos]);
    expect(table.columns.map((c) => c.header).slice(0, 2)).toEqual(['operation', 'security']);
    expect(table.rows.map((r) => r.slice(0, 3))).toEqual([
      ['lookup (GetKeyInfo)', 'none', '3.00× (3.00–3.00)'],
      ['lookup (GetKeyInfo)', 'Kerberos', '2.67× (2.67–2.67)'],
    ]);
    const figures = figuresTable([none, kerberos], ['fastpath-rpc', 'fastpath-grpc', 'java']);
    expect(figures.rows.map((r) => `${r[1]}/${r[2]}`)).toEqual([
      'none/fastpath, Hadoop RPC',
      'none/fastpath, gRPC',
      "none/Ozone's Java client",
      'Kerberos/fastpath, Hadoop RPC',
      "Kerberos/Ozone's Java client",
    ]);
    const totals = { listings: 2, expected: 5, found: 5, missing: 0, unexpected: 0 };
    const checks = checksTable([
      { security: 'none', verify: { java: totals } },
      { security: 'privacy', verify: { java: totals } },
    ]);
    expect(checks.rows.map((r) => r[0])).toEqual(['none', 'Kerberos + privacy, TLS']);
    expect(checksTable([{ verify: { java: totals } }]).columns[0]!.header).toBe('client');
  });

  it("the ceiling table: the cluster's CPU per op per client, and nothing without it", () => {
    const withCluster = (ops: number, clusterCpuMs: number): RoundSample[] => [
      { round: 1, sample: { ...sample(ops), clusterCpuMs } },
    ];
    const o = compareOp('lookup', {
      'fastpath-rpc': withCluster(1000, 1000),
      'fastpath-grpc': once(500),
      java: withCluster(800, 800),
    });
    const table = ceilingTable([o], ['fastpath-rpc', 'fastpath-grpc', 'java'], 2)!;
    // The gRPC client's window had no cluster CPU: no row. 2 cores ÷ 1 ms = 2,000 ops/s, 2.5× Java's 800.
    expect(table.rows.map((r) => [r[1], r[4], r[5]])).toEqual([
      ['fastpath, Hadoop RPC', '2.00 k', '2.50×'],
      ["Ozone's Java client", '2.00 k', '2.50×'],
    ]);
    expect(table.caption).toContain('2 cores');
    expect(ceilingTable([compareOp('lookup', { java: once(100) })], ['java'], 2)).toBeNull();
  });

  it("profile rows: an operation's levels together, CPU per op split by category in µs", () => {
    const noShares = Object.fromEntries(PROFILE_CATEGORIES.map((c) => [c, 0])) as Record<
      ProfileCategory,
      number
    >;
    const window = (
      level: ProfiledWindow['level'],
      op: ProfiledWindow['op'],
      busyMs: number,
    ): ProfiledWindow => ({
      level,
      op,
      client: 'fastpath-rpc',
      ops: 1000,
      errors: 0,
      cpuMs: busyMs * 1.25,
      profile: {
        busyMs,
        threads: 1,
        shares: {
          ...noShares,
          'garbage collection': 0.1,
          protobufjs: 0.4,
          'fastpath client': 0.5,
        },
      },
      topFunctions: [{ functionName: 'decode', url: 'protobufjs', category: 'protobufjs', share: 0.4 }],
    });
    const table = profileTable([
      window('none', 'lookup', 40),
      window('none', 'create-empty', 80),
      window('kerberos', 'create-empty', 100),
    ]);
    expect(table.rows.map((r) => r.slice(0, 2))).toEqual([
      ['create+commit, empty key', 'none'],
      ['create+commit, empty key', 'Kerberos'],
      ['lookup (GetKeyInfo)', 'none'],
    ]);
    // 100 ms busy over 1,000 ops: 100 µs per op, half of it the client's own code.
    expect(table.rows[1]!.slice(3)).toEqual([
      '125.0 µs',
      '100.0 µs',
      'fastpath client 50, protobufjs 40, garbage collection 10',
      'decode 40%',
    ]);
  });
});
