import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HADOOP_20045_TABLE } from '../src/all/published-tables.js';
import { runReportHtml } from '../src/all/report-html.js';
import { runReportMarkdown, summaryMarkdown } from '../src/all/report-markdown.js';
import { buildRunReport } from '../src/all/run-report.js';
import { writeRunReport } from '../src/all/write-run-report.js';
import { registry } from '../src/scenarios/index.js';
import { writeFixtureRun } from './fixtures/real-scenario-results.js';

// The report generator on a fixture results folder written in every registered scenario's own
// format: each summary reads its scenario's files, and both report files say the same.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bench-report-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const section = (report: ReturnType<typeof buildRunReport>, name: string) =>
  report.sections.find((s) => s.record.name === name)!;

describe('the report of a run of all', () => {
  it('reads every registered scenario’s results through its summary', async () => {
    await writeFixtureRun(path.join(dir, 'run'));
    const report = buildRunReport(path.join(dir, 'run'), registry);
    expect(report.complete).toBe(true);
    expect(report.sections.map((s) => s.record.name)).toEqual(registry.map((r) => r.scenario.name));
    for (const s of report.sections) {
      expect({ name: s.record.name, missing: s.figuresMissing }).toEqual({
        name: s.record.name,
        missing: null,
      });
      expect(s.figures?.headline?.ours).not.toBeNull();
      expect(s.charts).toHaveLength(1);
      expect(s.charts[0]!.svg.startsWith('<svg')).toBe(true);
    }
    // kms-http: fixed/original at 90:10 is 1.8× in every repetition, against the source's 7.47×.
    // kms-http-kerberos: fixed / Hadoop at 90:10 with SPNEGO, 2× in every repetition; a goal per row and version.
    const kerberos = section(report, 'kms-http-kerberos').figures!;
    expect(kerberos.headline).toMatchObject({ row: '90:10 SPNEGO', source: null });
    expect(kerberos.headline!.ours!.value).toBeCloseTo(2, 6);
    expect(kerberos.goals.map((g) => g.met)).toEqual([true, true, true, true, true, true]);
    const kms = section(report, 'kms-http').figures!;
    expect(kms.headline).toMatchObject({ row: '90:10', source: 7.47 });
    expect(kms.headline!.ours!.value).toBeCloseTo(1.8, 6);
    expect(kms.table!.rows.map((r) => r[0])).toEqual(['100:0', '95:5', '90:10']);
    // Its goals are the scenario's own, read from the same figures (≥ 1.6× at 90:10, ≥ 1.3× at
    // 95:5, where the fixture has 1.4×; no CPU figures in the fixture: that goal is not measured).
    expect(kms.goals.find((g) => g.goal.startsWith('fixed / original at 90:10'))?.met).toBe(true);
    expect(kms.goals.find((g) => g.goal.startsWith('fixed / original at 95:5'))?.met).toBe(true);
    expect(kms.goals.find((g) => g.goal.includes('CPU per verification'))?.met).toBeNull();
    // token-manager: staged/global paired by repetition.
    expect(section(report, 'token-manager').figures!.headline!.ours!.value).toBeCloseTo(3, 6);
    // secure-random: the goals come from its comparison JSON as written.
    expect(section(report, 'secure-random').figures!.goals.map((g) => g.met)).toEqual([true, null]);
    // cold-client: lower is better; 240/250 paired round by round.
    const cold = section(report, 'cold-client').figures!;
    expect(cold.headline).toMatchObject({ better: 'lower', row: 'full warm-up' });
    expect(cold.headline!.ours!.value).toBeCloseTo(0.96, 6);
    // Saved 10 ms of 16 ms moved (≥ 8 ms), but the ranges overlap: missed.
    expect(cold.goals[0]).toMatchObject({ met: false });
    // Its Java anchor: 0.2× of Java's total for the client as today meets "≤ 0.25×".
    expect(cold.goals[1]).toMatchObject({ met: true, measured: 'as-today 0.20×, code-cache 0.15×' });
    // ratis: fastpath ÷ Java writes/s per size, the 4 MiB row as headline, a goal per size.
    const ratis = section(report, 'ratis').figures!;
    expect(ratis.headline).toMatchObject({ row: '4MiB', better: 'higher', source: null });
    expect(ratis.headline!.ours!.value).toBeCloseTo(1.2, 6);
    expect(ratis.table!.rows.map((r) => r[0])).toEqual(['1KiB', '64KiB', '4MiB']);
    expect(ratis.goals.map((g) => g.met)).toEqual([true, true, true]);
    // ozone-write: fastpath ÷ Java MiB/s per row, the 16-writer row as headline, two goals per row.
    const write = section(report, 'ozone-write').figures!;
    expect(write.headline).toMatchObject({ row: '16 writers × 16 MiB', better: 'higher', source: null });
    expect(write.headline!.ours!.value).toBeCloseTo(1.1, 6);
    expect(write.table!.rows.map((r) => r[0])).toEqual([
      '1 writer × 256 MiB',
      '16 writers × 16 MiB',
      '16 writers × 32 keys × 64 KiB',
    ]);
    expect(write.goals.map((g) => g.met)).toEqual([true, true, true, true, true, true]);
    // ozone-tde: fixed ÷ Hadoop's KMS read files/s as headline; 2.2× meets "≥ 2×", fastpath's
    // encryption cost (0.9×) no more than Java's (0.85×).
    const tde = section(report, 'ozone-tde').figures!;
    expect(tde.headline).toMatchObject({ better: 'higher', source: null });
    expect(tde.headline!.ours!.value).toBeCloseTo(2.2, 6);
    expect(tde.table!.rows.map((r) => r[0])).toEqual([
      'Hadoop KMS',
      'Original (global lock)',
      'Fixed (staged)',
    ]);
    expect(tde.ratios.map((r) => r.ours?.value.toFixed(2))).toEqual(['2.20', '1.90', '0.90', '0.85']);
    expect(tde.goals.map((g) => g.met)).toEqual([true, true]);
  });

  it('shows the source’s table as published and ours beside it, in both files', async () => {
    await writeFixtureRun(path.join(dir, 'run'));
    const { report, markdownPath, htmlPath } = writeRunReport(path.join(dir, 'run'), registry);
    const md = readFileSync(markdownPath, 'utf8');
    const html = readFileSync(htmlPath, 'utf8');
    expect(md).toBe(runReportMarkdown(report));
    expect(html).toBe(runReportHtml(report));
    expect(md).toMatch(/^# fastpath benchmarks: report\n/);
    // The source's table as published, cell for cell.
    for (const row of HADOOP_20045_TABLE.rows)
      expect(md).toMatch(new RegExp(`\\| ${row.map((c) => c.replace('.', '\\.')).join(' +\\| +')} +\\|`));
    expect(md).toContain('[its own report](kms-http/report.md)');
    expect(md).toContain('![Successful requests/s by mix](kms-http/kms-http-chart.svg)');
    expect(md).toContain('Fixture CPU × 2');
    expect(md).toContain('npx nx run benchmarks:all -- --quick');
    // The HTML inlines every chart and needs nothing beside it but the linked files.
    expect(html.match(/<svg /g)).toHaveLength(registry.length);
    expect(html).not.toMatch(/<script|<link |src="http/);
    expect(html).toContain('<td style="text-align:right">7.47x</td>');
    expect(summaryMarkdown(report)).toMatch(
      /^One row per scenario[\s\S]*\| kms-http +\| HADOOP-20045 \| complete in 1:00 \|.*\| +1\.3 → 3\.5 \|\n/m,
    );
    // A scenario record without load averages (an older run) shows a dash, not a failure.
    expect(summaryMarkdown(report)).toMatch(/\| cold-client +\|.*\| +— \|$/m);
    // Which Node took each scenario's figures, in the summary and in the scenario's own section;
    // a record from before it was kept says so with a dash.
    expect(summaryMarkdown(report)).toMatch(/\| kms-http +\|.*\| v24\.22\.3 +\| +1\.3 → 3\.5 \|$/m);
    expect(summaryMarkdown(report)).toMatch(/\| cold-client +\|.*\| — +\| +— \|$/m);
    expect(md).toMatch(/Source: HADOOP-20045 · status: complete in 1:00 · figures taken on Node v24\.22\.3/);
  });

  it('marks a run that did not complete, and shows what the unfinished scenarios left', async () => {
    await writeFixtureRun(path.join(dir, 'run'), {
      statuses: { 'kms-http': 'failed', 'cold-client': 'not run' },
    });
    const { report, markdownPath } = writeRunReport(path.join(dir, 'run'), registry);
    expect(report.complete).toBe(false);
    const md = readFileSync(markdownPath, 'utf8');
    expect(md).toMatch(
      /^# fastpath benchmarks: INCOMPLETE report\n\n> \*\*Incomplete: not every scenario completed\. Not complete: kms-http \(failed\), cold-client \(not run\)/,
    );
    expect(md).toContain('ERR_BENCH_CHECK_FAILED: fixture failure');
    // What the failed scenario recorded is still read and shown.
    expect(section(report, 'kms-http').figures?.headline?.ours?.value).toBeCloseTo(1.8, 6);
    expect(section(report, 'cold-client').figuresMissing).toBe('not run');
    expect(md).toContain('Not run: the run stopped before this scenario.');
  });

  it('flags a headline outside the older run’s min–max in the wrong direction as a regression', async () => {
    await writeFixtureRun(path.join(dir, 'old'));
    await writeFixtureRun(path.join(dir, 'new'), { scale: 0.5 });
    const report = buildRunReport(path.join(dir, 'new'), registry, { compareDir: path.join(dir, 'old') });
    const verdicts = Object.fromEntries([...report.compared!.headlines].map(([k, v]) => [k, v.verdict]));
    // Every "new" side halved: ratios where higher is better fell below the old ranges; the cold
    // client's time ratio doubled, which is worse too.
    expect(verdicts).toEqual({
      locks: 'regression',
      'secure-random': 'regression',
      'token-manager': 'regression',
      'kms-http': 'regression',
      'kms-http-kerberos': 'regression',
      'ozone-read': 'regression',
      'cold-client': 'regression',
      ratis: 'regression',
      'ozone-write': 'regression',
      'ec-codec': 'regression',
      'ozone-tde': 'regression',
      'ozone-meta': 'regression',
    });
    const same = buildRunReport(path.join(dir, 'old'), registry, { compareDir: path.join(dir, 'old') });
    expect([...same.compared!.headlines.values()].every((h) => h.verdict === 'within range')).toBe(true);
    const better = buildRunReport(path.join(dir, 'old'), registry, { compareDir: path.join(dir, 'new') });
    expect(better.compared!.headlines.get('kms-http')?.verdict).toBe('improvement');
    expect(runReportMarkdown(report)).toMatch(/\| REGRESSION \(outside the older min–max\) \|/);
  });

  it('reads a folder of the earlier all, which had no run.json', async () => {
    await writeFixtureRun(path.join(dir, 'run'));
    rmSync(path.join(dir, 'run', 'run.json'));
    rmSync(path.join(dir, 'run', 'locks', 'charts.json'));
    const report = buildRunReport(path.join(dir, 'run'), registry);
    expect(report.sections).toHaveLength(registry.length);
    expect(section(report, 'locks').charts.map((c) => c.file)).toEqual([
      path.join('locks', 'locks-chart.svg'),
    ]);
    expect(existsSync(path.join(dir, 'run', 'locks', 'locks-chart.svg'))).toBe(true);
  });
});
