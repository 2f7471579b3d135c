import type { RangedValue, ScenarioSummary } from '../../all/scenario-summary.js';
import { entriesMatching } from '../../all/scenario-results-folder.js';
import { numberField, stringField } from '../../all/json-fields.js';
import { formatRatioWithRange, formatSiWithRange } from '../../harness/index.js';
import { BASELINE_VARIANT } from './lock-variants.js';
import type { LocksSettings } from './locks-settings.js';

const MODE_LABEL: Record<string, string> = { uncontended: 'uncontended', contended: 'contended' };

/** The lock scenario in the combined report: fastpath's own, so no source table and no goals. */
export const locksSummary: ScenarioSummary<LocksSettings> = {
  source: null,
  uses: () => [],
  cases: (s) => s.modes.length * s.variants.length,
  estimateMs: (s) => s.modes.length * s.variants.length * (s.warmupMs + s.rounds * s.roundMs) + 3000,
  read(folder) {
    const found = entriesMatching(folder, /^(uncontended|contended)\/([a-z-]+)$/);
    const modes = [...new Set(found.map((f) => f.match[1]!))];
    const locks = [...new Set(found.map((f) => f.match[2]!))];
    const at = (mode: string, lock: string) =>
      found.find((f) => f.match[1] === mode && f.match[2] === lock)?.entry ?? null;
    const rows = locks.map((lock) => {
      const first = found.find((f) => f.match[2] === lock)!.entry;
      return [
        stringField(first, 'lock') ?? lock,
        ...modes.flatMap((mode) => {
          const e = at(mode, lock);
          const ops = [
            numberField(e, 'medianOpsPerSec'),
            numberField(e, 'minOpsPerSec'),
            numberField(e, 'maxOpsPerSec'),
          ];
          const ratio = [
            numberField(e, 'ratioToAsyncMutex'),
            numberField(e, 'ratioMin'),
            numberField(e, 'ratioMax'),
          ];
          return [
            ops.every((v) => v !== null) ? formatSiWithRange(ops[0]!, ops[1]!, ops[2]!) : '—',
            lock === BASELINE_VARIANT
              ? '1× (baseline)'
              : ratio.every((v) => v !== null)
                ? formatRatioWithRange(ratio[0]!, ratio[1]!, ratio[2]!)
                : '—',
          ];
        }),
      ];
    });
    const mutex = at('uncontended', 'mutex');
    const value = numberField(mutex, 'ratioToAsyncMutex');
    const min = numberField(mutex, 'ratioMin');
    const max = numberField(mutex, 'ratioMax');
    const ours: RangedValue | null =
      value !== null && min !== null && max !== null ? { value, min, max } : null;
    return {
      table: {
        caption:
          'Acquire/release per second, median of the rounds (min–max); × async-mutex: ratio to a bare async-mutex Mutex in the same rounds',
        columns: [
          { header: 'lock' },
          ...modes.flatMap((m) => [
            { header: `${MODE_LABEL[m] ?? m} ops/s`, align: 'right' as const },
            { header: '× async-mutex', align: 'right' as const },
          ]),
        ],
        rows,
      },
      ratios: [],
      headline: ours
        ? {
            row: 'uncontended',
            label: 'core Mutex ÷ bare async-mutex Mutex, uncontended',
            ours,
            source: null,
            better: 'higher',
          }
        : null,
      goals: [],
      notes: [
        'fastpath’s own lock core: no source document, no goals; read the price of the core locks over a bare mutex.',
      ],
    };
  },
};
