import {
  createShare,
  kerberosGoals,
  kerberosHeadlineRow,
  kerberosRowLabel,
  kerberosRows,
  kerberosTable,
  serverUsPerCreation,
  type KerberosCaseFigures,
} from './kms-kerberos-report.js';

describe('serverUsPerCreation', () => {
  it("takes the verifications out at the version's 100:0 price and divides the rest by the creations", () => {
    // 1000 requests at 150 µs = 150 ms of server CPU; 900 verifications at 100 µs = 90 ms; 60 ms / 100.
    expect(serverUsPerCreation({ serverUsPerRequest: 150, requests: 1000, creations: 100 }, 100)).toBeCloseTo(
      600,
      9,
    );
    // Every request a creation: all of the CPU is theirs.
    expect(serverUsPerCreation({ serverUsPerRequest: 800, requests: 50, creations: 50 }, 100)).toBeCloseTo(
      800,
      9,
    );
    // Verifications dearer than at 100:0 leave less than nothing: kept negative, shown as n/a.
    expect(serverUsPerCreation({ serverUsPerRequest: 80, requests: 1000, creations: 100 }, 100)).toBeCloseTo(
      -100,
      9,
    );
  });

  it('is null without a CPU reading, a price, counts or creations', () => {
    const base = { serverUsPerRequest: 150, requests: 1000, creations: 100 };
    expect(serverUsPerCreation({ ...base, serverUsPerRequest: null }, 100)).toBeNull();
    expect(serverUsPerCreation(base, null)).toBeNull();
    expect(serverUsPerCreation({ ...base, requests: null }, 100)).toBeNull();
    expect(serverUsPerCreation({ ...base, creations: 0 }, 100)).toBeNull();
    expect(serverUsPerCreation({ ...base, creations: 1001 }, 100)).toBeNull();
  });

  it('reads the share of creations from a mix label', () => {
    expect([createShare('100:0'), createShare('90:10'), createShare('odd')]).toEqual([0, 0.1, 0]);
  });
});

// Two repetitions (×0.9 and ×1.1) of a Kerberos run. Server µs per verification at 100:0:
// Hadoop 200, original 100, fixed 100. At 90:10, 1000 requests with 100 creations.
const THROUGHPUT: Record<string, Record<string, number>> = {
  '100:0': { hadoop: 5000, original: 10_000, fixed: 10_000 },
  '90:10 SPNEGO': { hadoop: 1000, original: 1500, fixed: 2500 },
  '90:10 cookie': { hadoop: 2000, original: 2000, fixed: 6000 },
};
// Server µs per request at 90:10: with SPNEGO a creation costs (x - 0.9 × price) / 0.1.
const SERVER_US: Record<string, Record<string, number>> = {
  '100:0': { hadoop: 200, original: 100, fixed: 100 },
  '90:10 SPNEGO': { hadoop: 480, original: 250, fixed: 230 }, // creations 3000, 1600, 1400 µs (medians)
  '90:10 cookie': { hadoop: 280, original: 130, fixed: 120 }, // creations 1000, 400, 300 µs
};

function cases(): KerberosCaseFigures[] {
  return Object.entries(THROUGHPUT).flatMap(([row, byVersion]) =>
    Object.entries(byVersion).flatMap(([version, throughput]) =>
      [0, 1].map((rep) => {
        const [mix, auth] = row.split(' ');
        const wobble = rep === 0 ? 0.9 : 1.1;
        return {
          version: version as KerberosCaseFigures['version'],
          mix: mix!,
          rep,
          throughput: throughput * wobble,
          verifyP99Ms: 2,
          createP99Ms: mix === '100:0' ? null : 20,
          errors: 0,
          serverUsPerRequest: SERVER_US[row]![version]! * wobble,
          creationAuth: auth === 'cookie' ? ('cookie' as const) : ('spnego' as const),
          requests: 1000,
          creations: mix === '100:0' ? 0 : 100,
        };
      }),
    ),
  );
}

describe('the Kerberos table', () => {
  it('has a row for 100:0 and one per way of authenticating the creations of 90:10, SPNEGO first', () => {
    const rows = kerberosRows([...cases()].reverse());
    expect(rows.map(kerberosRowLabel)).toEqual(['100:0', '90:10 SPNEGO', '90:10 cookie']);
    expect(rows.map((r) => r.creationAuth)).toEqual([null, 'spnego', 'cookie']);
    const spnego = rows[1]!;
    expect(spnego.comparison.throughput.fixed?.median).toBeCloseTo(2500, 9);
    expect(spnego.comparison.overHadoop.fixed?.ratio).toBeCloseTo(2.5, 9);
    expect(spnego.comparison.overHadoop.original?.ratio).toBeCloseTo(1.5, 9);
    expect(kerberosHeadlineRow(rows)).toBe(spnego);
  });

  it("prices each case's verifications at its version's median at 100:0: the server CPU per handshake", () => {
    const rows = kerberosRows(cases());
    const [verifyOnly, spnego, cookie] = rows;
    expect(verifyOnly!.serverUsPerCreation).toEqual({});
    // Rep 0: (480 × 0.9 − 0.9 × 200) / 0.1 = 2520; rep 1: (480 × 1.1 − 180) / 0.1 = 3480; median 3000.
    expect(spnego!.serverUsPerCreation.hadoop).toMatchObject({ min: 2520, max: 3480 });
    expect(spnego!.serverUsPerCreation.hadoop?.median).toBeCloseTo(3000, 6);
    expect(spnego!.serverUsPerCreation.fixed?.median).toBeCloseTo(1400, 6);
    expect(cookie!.serverUsPerCreation.fixed?.median).toBeCloseTo(300, 6);
  });

  it('lays out requests/s, ratios over Hadoop and server µs per creation for each version', () => {
    const table = kerberosTable(kerberosRows(cases()));
    expect(table.columns.map((c) => c.header)).toEqual([
      'Verify:create',
      'Creations by',
      'Hadoop KMS req/s',
      'original req/s',
      'fixed req/s',
      'original / Hadoop',
      'fixed / Hadoop',
      'Hadoop KMS server µs/creation',
      'original server µs/creation',
      'fixed server µs/creation',
    ]);
    expect(table.rows[0]!.slice(0, 2)).toEqual(['100:0', 'none (verification only)']);
    expect(table.rows[0]!.slice(7)).toEqual(['—', '—', '—']);
    expect(table.rows[1]!.slice(0, 2)).toEqual(['90:10', 'SPNEGO, a handshake each']);
    expect(table.rows[1]!.slice(7)).toEqual(['3000 (2520–3480)', '1600 (1350–1850)', '1400 (1170–1630)']);
    expect(table.rows[2]![1]).toBe('hadoop.auth cookie');
    // Without Hadoop's KMS there is no ratio column.
    const fastpathOnly = kerberosTable(kerberosRows(cases().filter((c) => c.version !== 'hadoop')));
    expect(fastpathOnly.columns.map((c) => c.header).filter((h) => h.endsWith(' / Hadoop'))).toEqual([]);
  });

  it('holds every fastpath version in every row to ≥ 1× Hadoop, and says when Hadoop was not measured', () => {
    const goals = kerberosGoals(kerberosRows(cases()));
    expect(goals.map((g) => [g.goal, g.measured, g.met])).toEqual([
      ['Kerberos, 100:0: original / Hadoop KMS ≥ 1×', '2.00×', true],
      ['Kerberos, 100:0: fixed / Hadoop KMS ≥ 1×', '2.00×', true],
      ['Kerberos, 90:10 SPNEGO: original / Hadoop KMS ≥ 1×', '1.50×', true],
      ['Kerberos, 90:10 SPNEGO: fixed / Hadoop KMS ≥ 1×', '2.50×', true],
      ['Kerberos, 90:10 cookie: original / Hadoop KMS ≥ 1×', '1.00×', true],
      ['Kerberos, 90:10 cookie: fixed / Hadoop KMS ≥ 1×', '3.00×', true],
    ]);
    const slower = cases().map((c) =>
      c.version === 'original' ? { ...c, throughput: c.throughput / 2.5 } : c,
    );
    expect(kerberosGoals(kerberosRows(slower)).filter((g) => g.met === false).length).toBe(3);
    expect(kerberosGoals(kerberosRows(cases().filter((c) => c.version !== 'hadoop')))).toEqual([
      { goal: 'Kerberos: fastpath / Hadoop KMS ≥ 1× in every case', measured: '—', met: null },
    ]);
  });
});
