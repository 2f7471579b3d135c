import { asRecord, numberField, stringField } from '../../all/json-fields.js';
import { entriesMatching } from '../../all/scenario-results-folder.js';
import type { RangedValue, ScenarioSummary } from '../../all/scenario-summary.js';
import { bestRatio, ecCodecGoals, ecCodecTable, type EcCodecRow } from './ec-codec-report.js';
import { ecCaseMs } from './ec-codec-scenario.js';
import { EC_CODERS, type EcCodecSettings, type EcCoder } from './ec-codec-settings.js';

function coderValue(value: unknown): RangedValue | { missing: string } | undefined {
  const r = asRecord(value);
  const v = numberField(r, 'value');
  const min = numberField(r, 'min');
  const max = numberField(r, 'max');
  if (v !== null && min !== null && max !== null) return { value: v, min, max };
  const missing = stringField(r, 'missing');
  return missing === null ? undefined : { missing };
}

/** The ec-codec scenario in the combined report: fastpath's own (issue 35), no source table. */
export const ecCodecSummary: ScenarioSummary<EcCodecSettings> = {
  source: null,
  uses: (s) => (s.coders.includes('hadoop-java') ? ['java', 'hadoop'] : []),
  cases: (s) => s.schemas.length * s.ops.length,
  estimateMs: (s) => s.schemas.length * s.ops.length * s.coders.length * ecCaseMs(s) + 20_000,
  read(folder) {
    const rows: EcCodecRow[] = entriesMatching(folder, /^(rs-\d+-\d+)\/([a-z0-9-]+)$/).map(
      ({ match, entry }) => {
        const coders: EcCodecRow['coders'] = {};
        const raw = asRecord(entry['coders']);
        for (const coder of EC_CODERS) {
          const v = coderValue(raw?.[coder]);
          if (v !== undefined) coders[coder] = v;
        }
        return { schema: match[1]!, op: match[2]!, coders };
      },
    );
    const present: EcCoder[] = EC_CODERS.filter((c) => rows.some((r) => r.coders[c] !== undefined));
    const headlineRow = rows.find((r) => r.schema === 'rs-6-3' && r.op === 'encode') ?? rows[0];
    const headline = headlineRow ? bestRatio(headlineRow, 'hadoop-java') : null;
    return {
      table: ecCodecTable(rows, present),
      ratios: [],
      headline:
        headline && headlineRow
          ? {
              row: `${headlineRow.schema} ${headlineRow.op}`,
              label: 'best fastpath kernel ÷ Hadoop’s Java coder, MiB/s',
              ours: headline,
              source: null,
              better: 'higher',
            }
          : null,
      goals: ecCodecGoals(rows),
      notes: [
        'Figures taken on a shared machine are under load; the report of the run states its load average.',
      ],
    };
  },
};
