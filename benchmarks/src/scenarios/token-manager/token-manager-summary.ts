import { numberField } from '../../all/json-fields.js';
import { HADOOP_20045_TABLE, sourceRatio } from '../../all/published-tables.js';
import { entriesMatching } from '../../all/scenario-results-folder.js';
import type { RatioFigure, ScenarioSummary } from '../../all/scenario-summary.js';
import { compareRounds, formatRatioWithRange, formatSiWithRange, summarize } from '../../harness/index.js';
import type { CreationMode, TokenManagerSettings } from './token-manager-settings.js';

const SOURCE_LABEL = 'fixed / original';

/** The in-process token-manager scenario in the combined report, against HADOOP-20045's table. */
export const tokenManagerSummary: ScenarioSummary<TokenManagerSettings> = {
  source: HADOOP_20045_TABLE,
  uses: () => ['java', 'zookeeper'],
  cases: (s) => s.reps * s.mixes.length * s.modes.length,
  // Each case also creates its verify tokens and tears down its znodes: about a second more.
  estimateMs: (s) => s.reps * s.mixes.length * s.modes.length * (s.warmupMs + s.measureMs + 1000) + 5000,
  read(folder) {
    const cases = entriesMatching(folder, /^(\d+:\d+)\/(global|staged|coalesced)\/rep(\d+)$/).flatMap(
      ({ match, entry }) => {
        const verifyPerSec = numberField(entry, 'verifyPerSec');
        return verifyPerSec === null
          ? []
          : [{ mix: match[1]!, mode: match[2] as CreationMode, rep: Number(match[3]), verifyPerSec }];
      },
    );
    const mixes = [...new Set(cases.map((c) => c.mix))];
    const of = (mix: string, mode: CreationMode) =>
      cases.filter((c) => c.mix === mix && c.mode === mode).sort((a, b) => a.rep - b.rep);
    const over = (mix: string, mode: CreationMode) => {
      const base = of(mix, 'global');
      const cand = of(mix, mode).filter((c) => base.some((b) => b.rep === c.rep));
      const paired = cand.map((c) => base.find((b) => b.rep === c.rep)!.verifyPerSec);
      if (cand.length === 0 || paired.some((v) => v === 0)) return null;
      const r = compareRounds(
        cand.map((c) => c.verifyPerSec),
        paired,
      );
      return { value: r.ratio, min: r.min, max: r.max };
    };
    const rate = (mix: string, mode: CreationMode): string => {
      const runs = of(mix, mode);
      if (runs.length === 0) return '—';
      const s = summarize(runs.map((r) => r.verifyPerSec));
      return formatSiWithRange(s.median, s.min, s.max);
    };
    const ratioCell = (r: ReturnType<typeof over>): string =>
      r ? formatRatioWithRange(r.value, r.min, r.max) : '—';
    const ratios: RatioFigure[] = mixes.map((mix) => ({
      row: mix,
      label: SOURCE_LABEL,
      ours: over(mix, 'staged'),
      source: sourceRatio(HADOOP_20045_TABLE, mix, SOURCE_LABEL),
    }));
    const headline = ratios.find((r) => r.row === '90:10') ?? ratios[ratios.length - 1];
    return {
      table: {
        caption:
          'Verifications per second in one process, median over repetitions (min–max); original = global lock, fixed = staged creation',
        columns: [
          { header: 'Verify:create' },
          { header: 'Original verify/s', align: 'right' },
          { header: 'Fixed verify/s', align: 'right' },
          { header: 'Fixed/original', align: 'right' },
          { header: 'Fixed + coalesced verify/s', align: 'right' },
          { header: 'coalesced/original', align: 'right' },
        ],
        rows: mixes.map((mix) => [
          mix,
          rate(mix, 'global'),
          rate(mix, 'staged'),
          ratioCell(over(mix, 'staged')),
          rate(mix, 'coalesced'),
          ratioCell(over(mix, 'coalesced')),
        ]),
      },
      ratios,
      headline: headline
        ? { ...headline, label: `${SOURCE_LABEL} at ${headline.row}`, better: 'higher' }
        : null,
      goals: [],
      notes: [
        'In process, without HTTP: verifications per second of the secret manager itself, where the source counts all HTTP requests of a KMS. The same mechanism, a lighter load: the ratios are held against the source’s, the rates are not comparable.',
      ],
    };
  },
};
