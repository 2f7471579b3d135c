import { numberField, type JsonRecord } from '../../all/json-fields.js';
import { entriesMatching } from '../../all/scenario-results-folder.js';
import type { ScenarioSummary } from '../../all/scenario-summary.js';
import { estimateKmsHttpMs, kmsHttpCases } from '../kms-http/kms-http-estimate.js';
import type { KmsHttpSettings } from '../kms-http/kms-http-settings.js';
import {
  KERBEROS_CPU_NOTE,
  kerberosGoals,
  kerberosHeadlineRow,
  kerberosRowLabel,
  kerberosRows,
  kerberosTable,
  type KerberosCaseFigures,
} from '../kms-http/kms-kerberos-report.js';
import { caseFigures } from '../kms-http/kms-http-summary.js';

const KEY = /^kerberos-(spnego|cookie)\/(\d+:\d+)\/([a-z-]+)\/rep(\d+)$/;
const HEADLINE_LABEL = 'fixed / Hadoop KMS requests/s';

/** A Kerberos case from its comparison entry; none when the entry lacks the figures. */
function kerberosCase(entry: JsonRecord, match: RegExpMatchArray): KerberosCaseFigures[] {
  return caseFigures(entry, match[2]!, Number(match[4])).map((figures) => ({
    ...figures,
    creationAuth: match[1] === 'cookie' ? 'cookie' : 'spnego',
    requests: numberField(entry, 'requests'),
    creations: numberField(entry, 'creations'),
  }));
}

/**
 * The Kerberos run in the combined report. The source document measured simple authentication
 * only, so there is no source table: the table is fastpath's own, its goal fastpath ≥ 1× Hadoop's
 * KMS in every case, its headline fixed over Hadoop at 90:10 with SPNEGO (the worst case).
 */
export const kmsHttpKerberosSummary: ScenarioSummary<KmsHttpSettings> = {
  source: null,
  uses: (s) => (s.versions.includes('hadoop') ? ['java', 'zookeeper', 'hadoop'] : ['java', 'zookeeper']),
  cases: kmsHttpCases,
  estimateMs: estimateKmsHttpMs,
  read(folder) {
    const cases = entriesMatching(folder, KEY).flatMap(({ entry, match }) => kerberosCase(entry, match));
    const rows = kerberosRows(cases);
    const table = kerberosTable(rows);
    const ratios = rows.map((r) => {
      const ratio = r.comparison.overHadoop.fixed;
      return {
        row: kerberosRowLabel(r),
        label: HEADLINE_LABEL,
        ours: ratio ? { value: ratio.ratio, min: ratio.min, max: ratio.max } : null,
        source: null,
      };
    });
    const headlineRow = kerberosHeadlineRow(rows);
    const headline = headlineRow && ratios.find((r) => r.row === kerberosRowLabel(headlineRow));
    const errors = rows.reduce((n, r) => n + r.comparison.errors, 0);
    return {
      table: {
        caption:
          'Median successful requests/s over the repetitions (min–max), every server in Kerberos mode, and the server CPU per creation (per handshake with SPNEGO)',
        ...table,
      },
      ratios,
      headline: headline
        ? { ...headline, label: `${HEADLINE_LABEL} at ${headline.row}`, better: 'higher' }
        : null,
      goals: kerberosGoals(rows).map((g) => ({ goal: g.goal, target: '', measured: g.measured, met: g.met })),
      notes: [
        'Verification by delegation token in every row; creation by a fresh Kerberos exchange each (SPNEGO) or by the hadoop.auth cookie of one log-in. One MIT KDC for the run, on this machine.',
        KERBEROS_CPU_NOTE,
        `Errors in the measured windows: ${errors}.`,
      ],
    };
  },
};
