import { BenchmarkUsageError } from '../../harness/benchmark-errors.js';
import { combineServerFigures, type ServerFigures } from './case-server.js';
import {
  fleetGoals,
  fleetMembers,
  fleetRowLabel,
  fleetRows,
  fleetSignerSite,
  fleetTable,
  type FleetCaseFigures,
  type FleetKind,
} from './kms-fleet.js';
import {
  estimateKmsHttpMs,
  FASTPATH_CASE_OVERHEAD_MS,
  kmsCaseMs,
  kmsHttpCases,
} from './kms-http-estimate.js';
import { parseKmsHttpFlags } from './kms-http-settings.js';
import { caseId, comparisonKey, kmsPasses } from './kms-passes.js';

describe('--instances', () => {
  it('adds a fleet of one and a fleet pass per row after the single-instance passes: creation mixes, cookie, fixed', () => {
    const s = parseKmsHttpFlags(['--auth', 'kerberos', '--instances', '3'], true);
    expect(s.instances).toBe(3);
    const passes = kmsPasses(s);
    expect(
      passes.map((p) => [p.part, p.creationAuth, p.fleet?.kind ?? null, p.fleet?.instances ?? null]),
    ).toEqual([
      ['kerberos', 'spnego', null, null],
      ['kerberos', 'cookie', null, null],
      ['fleet', 'cookie', 'shared', 1],
      ['fleet', 'cookie', 'random', 1],
      ['fleet', 'cookie', 'shared', 3],
      ['fleet', 'cookie', 'random', 3],
      ['fleet', 'cookie', 'mixed', 3],
    ]);
    const fleet = passes.slice(2);
    for (const p of fleet) {
      expect(p.mixes.map((m) => m.label)).toEqual(['90:10']);
      expect(p.versions).toEqual(['fixed']);
    }
    const mix = fleet[0]!.mixes[0]!;
    expect(caseId(fleet[0]!, mix, 'fixed', 0)).toBe('fleet-shared1-90-10-rep0');
    expect(caseId(fleet[3]!, mix, 'fixed', 0)).toBe('fleet-random3-90-10-rep0');
    expect(comparisonKey(fleet[4]!, mix, 'fixed', 1)).toBe('fleet-mixed3/90:10/rep1');
  });

  it('runs no fleet by default, nor without a mix with creations', () => {
    expect(kmsPasses(parseKmsHttpFlags(['--auth', 'kerberos'], true)).some((p) => p.fleet)).toBe(false);
    const verifyOnly = parseKmsHttpFlags(
      ['--auth', 'kerberos', '--instances', '2', '--mixes', '100:0'],
      true,
    );
    expect(kmsPasses(verifyOnly).some((p) => p.fleet)).toBe(false);
  });

  it('is refused without Kerberos, and outside 1 to 3', () => {
    expect(() => parseKmsHttpFlags(['--instances', '2'], false)).toThrow(BenchmarkUsageError);
    expect(() => parseKmsHttpFlags(['--auth', 'kerberos', '--instances', '4'], false)).toThrow(
      BenchmarkUsageError,
    );
    expect(() => parseKmsHttpFlags(['--auth', 'kerberos', '--instances', '0'], false)).toThrow(
      BenchmarkUsageError,
    );
  });

  it("estimates a fleet case as its first member's case and every other member's start", () => {
    const s = parseKmsHttpFlags(
      [
        '--auth',
        'kerberos',
        '--instances',
        '3',
        '--creation-auth',
        'cookie',
        '--versions',
        'fixed',
        '--mixes',
        '90:10',
      ],
      true,
    );
    expect(kmsHttpCases(s)).toBe(6);
    const fastpathFleet = kmsCaseMs(s, 'fixed') + 2 * FASTPATH_CASE_OVERHEAD_MS;
    const mixedFleet = kmsCaseMs(s, 'hadoop') + 2 * FASTPATH_CASE_OVERHEAD_MS;
    // A fleet of one is its member's case alone.
    expect(estimateKmsHttpMs(s)).toBe(3 * kmsCaseMs(s, 'fixed') + 2 * fastpathFleet + mixedFleet);
  });
});

describe('the fleet members and signer settings', () => {
  it("puts Hadoop's KMS first in the mixed fleet only", () => {
    expect(fleetMembers({ instances: 3, kind: 'mixed' })).toEqual(['hadoop', 'fixed', 'fixed']);
    expect(fleetMembers({ instances: 2, kind: 'shared' })).toEqual(['fixed', 'fixed']);
    expect(fleetMembers({ instances: 2, kind: 'random' })).toEqual(['fixed', 'fixed']);
  });

  it('shares the secrets through ZooKeeper except in the random row', () => {
    const p = 'hadoop.kms.authentication.signer.secret.provider';
    expect(fleetSignerSite('random', 'zk:1')).toEqual({ [p]: 'random' });
    for (const kind of ['shared', 'mixed'] as const) {
      expect(fleetSignerSite(kind, '127.0.0.1:2181')).toEqual({
        [p]: 'zookeeper',
        [`${p}.zookeeper.connection.string`]: '127.0.0.1:2181',
        [`${p}.zookeeper.auth.type`]: 'none',
      });
    }
  });
});

const fc = (
  kind: FleetKind | null,
  rep: number,
  throughput: number,
  extra: Partial<FleetCaseFigures> = {},
): FleetCaseFigures => ({
  fleet: kind === null ? null : { instances: 3, kind },
  version: 'fixed',
  mix: '90:10',
  rep,
  throughput,
  serverUsPerRequest: 100,
  creations: 100,
  reauthentications: 0,
  ...extra,
});

describe('fleetRows', () => {
  // One instance 1000 and 1200 req/s; the shared fleet 2850 and 3000 (950, 1000 per instance).
  const cases: FleetCaseFigures[] = [
    fc(null, 0, 1000),
    fc(null, 1, 1200),
    fc('shared', 0, 2850),
    fc('shared', 1, 3000),
    fc('random', 0, 1500, { reauthentications: 60, serverUsPerRequest: 300 }),
    fc('random', 1, 1800, { reauthentications: 70, serverUsPerRequest: 320 }),
    fc('mixed', 0, 2100),
    // The fleets of one: shared 950 and 1140 req/s, random 1000 and 1200.
    fc('shared', 0, 950, { fleet: { instances: 1, kind: 'shared' } }),
    fc('shared', 1, 1140, { fleet: { instances: 1, kind: 'shared' } }),
    fc('random', 0, 1000, { fleet: { instances: 1, kind: 'random' } }),
    fc('random', 1, 1200, { fleet: { instances: 1, kind: 'random' } }),
    // Another version's single-instance cookie case is not the reference.
    fc(null, 0, 99_999, { version: 'original' }),
  ];

  it('pairs each row per instance with the single instance by repetition', () => {
    const rows = fleetRows(cases);
    expect(rows.map((r) => [r.kind, r.instances])).toEqual([
      [null, 1],
      ['shared', 1],
      ['random', 1],
      ['shared', 3],
      ['random', 3],
      ['mixed', 3],
    ]);
    const [single, ofOne, randomOfOne, shared, random, mixed] = rows;
    // The fleet of one against the single instance and against its random twin, per repetition 0.95.
    expect(ofOne!.perInstanceOverSingle!.ratio).toBeCloseTo(1045 / 1100, 9);
    expect(ofOne!.sharedOverRandom!.ratio).toBeCloseTo(1045 / 1100, 9);
    expect(ofOne!.sharedOverRandom!.min).toBeCloseTo(0.95, 9);
    expect(randomOfOne!.sharedOverRandom).toBeNull();
    // The fleet of three: 2850 / 1500 and 3000 / 1800.
    expect(shared!.sharedOverRandom!.ratio).toBeCloseTo(2925 / 1650, 9);
    expect(single!.perInstanceOverSingle).toBeNull();
    expect(shared!.perInstance).toMatchObject({ min: 950, max: 1000 });
    // Median 975 over median 1100; per repetition 0.95 and 1000/1200.
    expect(shared!.perInstanceOverSingle!.ratio).toBeCloseTo(975 / 1100, 9);
    expect(shared!.perInstanceOverSingle!.min).toBeCloseTo(1000 / 1200, 9);
    expect(shared!.perInstanceOverSingle!.max).toBeCloseTo(0.95, 9);
    expect(random!.reauthenticationsPerCreation!.median).toBeCloseTo(0.65, 9);
    expect(random!.serverUsPerRequest!.median).toBe(310);
    // Only repetition 0 has both.
    expect(mixed!.perInstanceOverSingle).toMatchObject({ ratio: 700 / 1000, rounds: 1 });
  });

  it('holds the shared rows to 0.9×: the fleet of one against its random twin, the fleet against one instance', () => {
    expect(fleetGoals(fleetRows(cases))).toEqual([
      {
        goal: 'Kerberos fleet of 1, 90:10 cookie: shared secrets, req/s / the same instance with a random secret ≥ 0.9×',
        measured: '0.95×',
        met: true,
      },
      {
        goal: 'Kerberos fleet of 3, 90:10 cookie: shared secrets, req/s per instance / one instance ≥ 0.9×',
        measured: '0.89×',
        met: false,
      },
    ]);
    // Without the single instance's row the fleet of one still has its reference, the fleet not.
    const alone = fleetRows(cases.filter((c) => c.fleet !== null));
    expect(fleetGoals(alone).map((g) => g.met)).toEqual([true, null]);
  });

  it('writes a row per fleet with its name', () => {
    const table = fleetTable(fleetRows(cases));
    expect(table.columns).toHaveLength(8);
    expect(table.rows.map((r) => r[1])).toEqual([
      'one instance (the cookie row)',
      'fleet, secrets shared through ZooKeeper (1)',
      'fleet, a random secret per instance (1)',
      'fleet, secrets shared through ZooKeeper (3)',
      'fleet, a random secret per instance (3)',
      "mixed fleet (Hadoop's KMS first), secrets shared (3)",
    ]);
    expect(fleetRowLabel({ kind: 'random', instances: 2 })).toBe('fleet, a random secret per instance (2)');
    expect(table.rows[0]![4]).toBe('—');
  });
});

describe('combineServerFigures', () => {
  const f = (x: Partial<ServerFigures>): ServerFigures => ({
    eventLoopDelayP99Ms: null,
    eventLoop: null,
    gcSeconds: null,
    stageMeansMs: { allocate: null },
    persistBatchMean: null,
    zookeeperOpMeanMs: null,
    ...x,
  });

  it("takes the busiest loop, sums GC only when every member has it, and a fastpath member's stages", () => {
    const hadoop = f({ gcSeconds: 0.5 });
    const a = f({
      eventLoopDelayP99Ms: 2,
      gcSeconds: 0.1,
      stageMeansMs: { allocate: 0.3 },
      persistBatchMean: 4,
    });
    const b = f({ eventLoopDelayP99Ms: 5, gcSeconds: 0.2, stageMeansMs: { allocate: 0.4 } });
    const all = combineServerFigures([hadoop, a, b]);
    expect(all).toMatchObject({
      eventLoopDelayP99Ms: 5,
      persistBatchMean: 4,
      stageMeansMs: { allocate: 0.3 },
    });
    expect(all.gcSeconds).toBeCloseTo(0.8, 9);
    expect(combineServerFigures([a, f({})]).gcSeconds).toBeNull();
    expect(combineServerFigures([a])).toBe(a);
  });
});
