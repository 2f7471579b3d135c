import { describe, expect, it } from '@jest/globals';
import { BenchmarkUsageError } from '../../harness/index.js';
import { securityCost, securityCostGoals, type LevelRounds } from './security-cost.js';
import { securityCostChartSvg, securityCostTable } from './security-cost-report.js';
import { securityFlag, securityMark } from './security-levels.js';

const rounds = (
  client: string,
  level: LevelRounds['level'],
  throughput: number[],
  cpuPerOp: number[],
  operation = 'lookup',
): LevelRounds => ({ client, operation, level, throughput, cpuPerOp });

describe('--security', () => {
  it('defaults to none; takes a list of levels in the order given; a secure one needs a real cluster', () => {
    expect(securityFlag('s', undefined, 'embedded')).toEqual(['none']);
    expect(securityFlag('s', 'none,kerberos,privacy', 'real')).toEqual(['none', 'kerberos', 'privacy']);
    expect(securityFlag('s', 'kerberos,none,kerberos', 'real')).toEqual(['kerberos', 'none']);
    expect(() => securityFlag('s', 'kerberos', 'embedded')).toThrow(/needs --cluster real/);
    expect(() => securityFlag('s', 'kerberos', 'real-ha')).toThrow(BenchmarkUsageError);
    expect(() => securityFlag('s', 'tls', 'real')).toThrow(BenchmarkUsageError);
    expect(securityMark('none')).toBe('');
    expect(securityMark('privacy')).toBe('privacy-');
  });
});

describe('security cost', () => {
  it("is each client's secure ÷ unsecured, ratio of the medians, rounds paired by number", () => {
    const rows = securityCost([
      rounds('java', 'none', [100, 200, 300], [1, 1, 2]),
      rounds('java', 'kerberos', [90, 160, 240], [1.1, 1.2, 2.4]),
      rounds('fastpath', 'none', [1000, 1000, 1000], [0.5, 0.5, 0.5]),
      rounds('fastpath', 'kerberos', [950, 900, 800], [0.5, 0.55, 0.6]),
      rounds('fastpath', 'privacy', [500], [1]),
    ]);
    expect(rows.map((r) => `${r.client}/${r.level}`)).toEqual([
      'java/kerberos',
      'fastpath/kerberos',
      'fastpath/privacy',
    ]);
    const java = rows[0]!;
    // Medians 160 over 200; per round 0.9, 0.8, 0.8.
    expect(java.throughput.ratio).toBeCloseTo(0.8, 9);
    expect(java.throughput).toMatchObject({ min: 0.8, rounds: 3 });
    expect(java.throughput.max).toBeCloseTo(0.9, 9);
    expect(java.cpuPerOp.ratio).toBeCloseTo(1.2, 9);
    const fastpath = rows[1]!;
    expect(fastpath.throughput.ratio).toBeCloseTo(0.9, 9);
    expect(fastpath.cpuPerOp).toMatchObject({ rounds: 3 });
    expect(fastpath.cpuPerOp.ratio).toBeCloseTo(1.1, 9);
    // One privacy round against the first unsecured one.
    expect(rows[2]!.throughput).toMatchObject({ ratio: 0.5, rounds: 1 });
  });

  it('leaves out what has no unsecured rounds, or an unsecured round of 0', () => {
    expect(securityCost([rounds('java', 'kerberos', [1], [1])])).toEqual([]);
    expect(securityCost([rounds('java', 'none', [0], [1]), rounds('java', 'kerberos', [1], [1])])).toEqual(
      [],
    );
    expect(
      securityCost([rounds('java', 'none', [1], [1]), rounds('java', 'kerberos', [1], [1], 'list')]),
    ).toEqual([]);
  });

  it("meets the goal when fastpath's throughput ratio is at least Java's and its CPU ratio at most Java's", () => {
    const rows = securityCost([
      rounds('java', 'none', [100], [1]),
      rounds('java', 'kerberos', [80], [1.2]),
      rounds('fastpath', 'none', [1000], [0.5]),
      rounds('fastpath', 'kerberos', [850], [0.65]),
      rounds('fastpath', 'none', [10], [1], 'list'),
      rounds('fastpath', 'kerberos', [10], [1], 'list'),
    ]);
    const goals = securityCostGoals(rows, { client: 'java', label: 'Java' }, (c) => c);
    // lookup: 0.85× ≥ 0.8× met; CPU 1.3× > 1.2× missed. list: no Java rows, not measured.
    expect(goals.map((g) => g.met)).toEqual([true, false, null, null]);
    expect(goals[0]!.goal).toMatch(/^lookup, Kerberos: fastpath's secure ÷ unsecured ops\/s ≥ Java's$/);
    expect(goals[0]!.measured).toBe('0.850× (0.850–0.850) against 0.800× (0.800–0.800)');
    expect(goals[3]!.measured).toMatch(/Java not measured/);

    const labels = { baseline: 'java', baselineLabel: 'Java', clientLabel: (c: string) => c, unit: 'op' };
    const table = securityCostTable(rows, labels);
    expect(table.rows).toEqual([
      ['lookup', 'Kerberos', 'java', '0.800× (0.800–0.800)', '1.20× (1.20–1.20)', 'the line', 'the line'],
      ['lookup', 'Kerberos', 'fastpath', '0.850× (0.850–0.850)', '1.30× (1.30–1.30)', 'met', '**missed**'],
      [
        'list',
        'Kerberos',
        'fastpath',
        '1.00× (1.00–1.00)',
        '1.00× (1.00–1.00)',
        'not measured',
        'not measured',
      ],
    ]);
    const svg = securityCostChartSvg(rows, 'throughput', { ...labels, title: 't', subtitle: 's' });
    expect(svg).toContain('no cost (1×)');
    expect(svg).toContain('data-category="lookup · Kerberos"');
    expect(svg.match(/<rect class="bar"/g)).toHaveLength(3);
  });
});
