// The Kerberos table of kms-http (`--auth kerberos`, and the kms-http-kerberos scenario of
// `benchmarks:all`): per mix and way of authenticating creations, each version's requests/s, each
// fastpath version over Hadoop's KMS, and the server CPU per creation, which with SPNEGO is the
// server CPU per handshake. Pure: the scenario's report and the all-report's summary both read it.
import {
  formatRatioWithRange,
  formatSiWithRange,
  median,
  summarize,
  type RatioSummary,
  type Summary,
  type TableColumn,
} from '../../harness/index.js';
import { aggregateCases, type CaseFigures, type MixComparison } from './aggregate-cases.js';
import { estimatedCreationUs } from './cpu-per-request.js';
import { CREATION_AUTHS, type CreationAuth } from './kms-http-settings.js';
import { ALL_VERSIONS, type KmsVersion } from './kms-versions.js';

/** One Kerberos case: the matrix's figures, how its creations authenticated, and its counts. */
export interface KerberosCaseFigures extends CaseFigures {
  creationAuth: CreationAuth;
  /** Requests completed in the measured window (successes and errors), all operations. */
  requests: number | null;
  /** Creations completed in the window; with SPNEGO each one carried a handshake. */
  creations: number | null;
}

/** One row of the Kerberos table: a mix, and for a mix with creations, how they authenticated. */
export interface KerberosRow {
  mix: string;
  /** null for a mix without creations (100:0), which no way of authenticating them changes. */
  creationAuth: CreationAuth | null;
  comparison: MixComparison;
  /** Server CPU µs per creation, estimated per case (serverUsPerCreation); per handshake with SPNEGO. */
  serverUsPerCreation: Partial<Record<KmsVersion, Summary>>;
}

/** A goal of the Kerberos run, held against its figures; `met` null where not measured. */
export interface KerberosGoal {
  goal: string;
  measured: string;
  met: boolean | null;
}

/** The share of creations in a `verify:create` label, 0 where it is not one. */
export function createShare(mix: string): number {
  const [verify, create] = mix.split(':').map(Number);
  return verify !== undefined && create !== undefined && verify + create > 0 ? create / (verify + create) : 0;
}

/**
 * The server CPU of one creation in one case: the window's server CPU less its verifications,
 * each priced at the same version's server CPU per verification at 100:0, over the creations.
 * With SPNEGO every creation is one handshake (the Kerberos accept, the cookie and the token), so
 * this is the server CPU per handshake. Null without the counts, a CPU reading or creations.
 *
 * @example serverUsPerCreation({ serverUsPerRequest: 150, requests: 1000, creations: 100 }, 100) // 600
 */
export function serverUsPerCreation(
  c: Pick<KerberosCaseFigures, 'serverUsPerRequest' | 'requests' | 'creations'>,
  usPerVerification: number | null,
): number | null {
  const { serverUsPerRequest, requests, creations } = c;
  if (serverUsPerRequest == null || usPerVerification === null || requests === null || creations === null)
    return null;
  if (!(requests > 0) || !(creations > 0) || creations > requests) return null;
  return estimatedCreationUs(serverUsPerRequest, creations / requests, usPerVerification);
}

const byShare = (a: string, b: string): number => createShare(a) - createShare(b);

/**
 * Folds the Kerberos cases into rows: mixes by their share of creations, a mix with creations once
 * per way of authenticating them (SPNEGO first). Throughput and ratios as the matrix pairs them
 * (by repetition); the CPU per creation per case, its verifications priced at the median server
 * CPU per request of the same version's cases at 100:0.
 */
export function kerberosRows(cases: readonly KerberosCaseFigures[]): KerberosRow[] {
  const perVerification = new Map<KmsVersion, number>();
  for (const version of ALL_VERSIONS) {
    const values = cases
      .filter((c) => c.version === version && createShare(c.mix) === 0)
      .map((c) => c.serverUsPerRequest)
      .filter((x): x is number => typeof x === 'number');
    if (values.length > 0) perVerification.set(version, median(values));
  }
  const mixes = [...new Set(cases.map((c) => c.mix))].sort(byShare);
  return mixes.flatMap((mix) => {
    const auths: (CreationAuth | null)[] =
      createShare(mix) === 0
        ? [null]
        : CREATION_AUTHS.filter((a) => cases.some((c) => c.mix === mix && c.creationAuth === a));
    return auths.map((creationAuth): KerberosRow => {
      const own = cases.filter(
        (c) => c.mix === mix && (creationAuth === null || c.creationAuth === creationAuth),
      );
      const serverUs: KerberosRow['serverUsPerCreation'] = {};
      for (const version of ALL_VERSIONS) {
        const values = own
          .filter((c) => c.version === version)
          .map((c) => serverUsPerCreation(c, perVerification.get(version) ?? null))
          .filter((x): x is number => x !== null);
        if (values.length > 0) serverUs[version] = summarize(values);
      }
      return {
        mix,
        creationAuth,
        comparison: aggregateCases(own, [mix])[0]!,
        serverUsPerCreation: serverUs,
      };
    });
  });
}

const CREATIONS_BY: Record<CreationAuth | 'none', string> = {
  none: 'none (verification only)',
  spnego: 'SPNEGO, a handshake each',
  cookie: 'hadoop.auth cookie',
};

/** A row's name in goals and the headline: `90:10 SPNEGO`, `90:10 cookie`, `100:0`. */
export function kerberosRowLabel(row: Pick<KerberosRow, 'mix' | 'creationAuth'>): string {
  if (row.creationAuth === null) return row.mix;
  return `${row.mix} ${row.creationAuth === 'spnego' ? 'SPNEGO' : 'cookie'}`;
}

const versionName = (v: KmsVersion): string => (v === 'hadoop' ? 'Hadoop KMS' : v);
const withRange = (s: Summary | undefined): string => (s ? formatSiWithRange(s.median, s.min, s.max) : '—');
const ratioCell = (r: RatioSummary | undefined): string =>
  r ? formatRatioWithRange(r.ratio, r.min, r.max) : '—';
const usCell = (s: Summary | undefined): string => {
  if (!s) return '—';
  // Negative: the case's verifications cost more than at 100:0 (noise, or contention).
  if (s.median < 0) return 'n/a (< 0)';
  return `${s.median.toFixed(0)} (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
};

/** The versions the rows measured, in the report's column order. */
function versionsOf(rows: readonly KerberosRow[]): KmsVersion[] {
  return ALL_VERSIONS.filter((v) => rows.some((r) => r.comparison.throughput[v] !== undefined));
}

/** The table: header cells and rows of plain-text cells, for Markdown and the all-report. */
export function kerberosTable(rows: readonly KerberosRow[]): { columns: TableColumn[]; rows: string[][] } {
  const versions = versionsOf(rows);
  const overHadoop = versions.includes('hadoop')
    ? versions.filter((v): v is Exclude<KmsVersion, 'hadoop'> => v !== 'hadoop')
    : [];
  const right = (header: string): TableColumn => ({ header, align: 'right' });
  return {
    columns: [
      { header: 'Verify:create' },
      { header: 'Creations by' },
      ...versions.map((v) => right(`${versionName(v)} req/s`)),
      ...overHadoop.map((v) => right(`${v} / Hadoop`)),
      ...versions.map((v) => right(`${versionName(v)} server µs/creation`)),
    ],
    rows: rows.map((r) => [
      r.mix,
      CREATIONS_BY[r.creationAuth ?? 'none'],
      ...versions.map((v) => withRange(r.comparison.throughput[v])),
      ...overHadoop.map((v) => ratioCell(r.comparison.overHadoop[v])),
      ...versions.map((v) => (r.creationAuth === null ? '—' : usCell(r.serverUsPerCreation[v]))),
    ]),
  };
}

/** What the CPU columns are, for the line under the table. */
export const KERBEROS_CPU_NOTE =
  "Server µs/creation: the server process tree's CPU (user + system, from /proc; Hadoop's KMS JVM for " +
  "Hadoop) over the measured window, less the window's verifications priced at the same version's CPU " +
  'per verification at 100:0, divided by the creations. With SPNEGO every creation is one handshake ' +
  '(the Kerberos accept, the cookie, the token), so its rows are the server CPU per handshake; the ' +
  'cookie rows are the same creation without the handshake.';

/**
 * The goal of the Kerberos run: fastpath at least as fast as Hadoop's KMS in every case, one line
 * per row and fastpath version; one line, not measured, when the run had no Hadoop KMS.
 */
export function kerberosGoals(rows: readonly KerberosRow[]): KerberosGoal[] {
  const versions = versionsOf(rows).filter((v): v is Exclude<KmsVersion, 'hadoop'> => v !== 'hadoop');
  const goals = rows.flatMap((row) =>
    versions.flatMap((v) => {
      const ratio = row.comparison.overHadoop[v];
      if (row.comparison.throughput.hadoop === undefined) return [];
      return [
        {
          goal: `Kerberos, ${kerberosRowLabel(row)}: ${v} / Hadoop KMS ≥ 1×`,
          measured: ratio ? `${ratio.ratio.toFixed(2)}×` : '—',
          met: ratio ? ratio.ratio >= 1 : null,
        },
      ];
    }),
  );
  return goals.length > 0
    ? goals
    : [{ goal: 'Kerberos: fastpath / Hadoop KMS ≥ 1× in every case', measured: '—', met: null }];
}

/** The row the Kerberos run is read by: SPNEGO at the mix with the most creations, the worst case. */
export function kerberosHeadlineRow(rows: readonly KerberosRow[]): KerberosRow | undefined {
  const spnego = rows.filter((r) => r.creationAuth === 'spnego');
  return spnego[spnego.length - 1] ?? rows[rows.length - 1];
}
