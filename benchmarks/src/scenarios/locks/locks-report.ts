import {
  formatRatioWithRange,
  formatSiWithRange,
  markdownTable,
  PALETTE,
  type ChartSpec,
  type RatioSummary,
  type Summary,
} from '../../harness/index.js';
import { BASELINE_VARIANT, LOCK_VARIANT_IDS, LOCK_VARIANTS, type LockVariantId } from './lock-variants.js';
import type { LockMode, LockRound } from './measure-lock-round.js';
import type { LocksSettings } from './locks-settings.js';

/** Everything measured for one lock in one mode. */
export interface LockCaseResult {
  mode: LockMode;
  variant: LockVariantId;
  label: string;
  warmup: LockRound | null;
  rounds: LockRound[];
  opsPerSec: Summary;
  vsBaseline: RatioSummary;
  maxHolders: number;
}

export function modeTitle(mode: LockMode, settings: LocksSettings): string {
  return mode === 'uncontended' ? 'uncontended (1 caller)' : `contended (${settings.concurrency} callers)`;
}

/** A lock keeps its colour in every chart, whichever locks a run leaves out. */
function colorOf(variant: LockVariantId): string {
  return PALETTE[LOCK_VARIANT_IDS.indexOf(variant) % PALETTE.length]!;
}

function find(
  results: readonly LockCaseResult[],
  mode: LockMode,
  variant: LockVariantId,
): LockCaseResult | undefined {
  return results.find((r) => r.mode === mode && r.variant === variant);
}

/** The lock table: one row per lock; per mode, ops/s and the ratio to the bare async-mutex Mutex. */
export function locksTable(results: readonly LockCaseResult[], settings: LocksSettings): string {
  const modes = settings.modes;
  const columns = [
    { header: 'lock' },
    ...modes.flatMap((mode) => [
      { header: `${modeTitle(mode, settings)}: ops/s (min–max)`, align: 'right' as const },
      { header: '× async-mutex (min–max)', align: 'right' as const },
    ]),
  ];
  if (modes.includes('contended')) columns.push({ header: 'max holders seen', align: 'right' });
  const rows = settings.variants.map((variant) => {
    const cells = [LOCK_VARIANTS[variant].label];
    for (const mode of modes) {
      const r = find(results, mode, variant);
      if (!r) {
        cells.push('—', '—');
        continue;
      }
      cells.push(
        formatSiWithRange(r.opsPerSec.median, r.opsPerSec.min, r.opsPerSec.max),
        variant === BASELINE_VARIANT
          ? '1× (baseline)'
          : formatRatioWithRange(r.vsBaseline.ratio, r.vsBaseline.min, r.vsBaseline.max),
      );
    }
    if (modes.includes('contended'))
      cells.push(String(find(results, 'contended', variant)?.maxHolders ?? '—'));
    return cells;
  });
  return markdownTable(columns, rows);
}

/** The report body: how to read the table, the table, and what it leaves out. */
export function locksMarkdown(results: readonly LockCaseResult[], settings: LocksSettings): string {
  return [
    `ops/s: median of ${settings.rounds} rounds of ${settings.roundMs} ms each (after ${settings.warmupMs} ms of warm-up), ` +
      'min–max in brackets. × async-mutex: median ops/s over that of the bare async-mutex `Mutex` measured in the same rounds, ' +
      'with the range of the per-round ratios.',
    locksTable(results, settings),
    '**Read first:** the × async-mutex column of *core Mutex* and *ReadWriteLock write/read*, uncontended: ' +
      'the price every call pays on top of a bare mutex when nobody waits. Then the contended column: what ' +
      `${settings.concurrency} callers queueing on one lock get through. The *+ metrics* rows add the wait/hold ` +
      'histograms every named lock can record.',
    'Uncontended: one caller loops `await runX(fn)` with a synchronous `fn`. Contended: ' +
      `${settings.concurrency} async loops share one lock and \`fn\` awaits once while holding it. ` +
      '*max holders seen*: most callers inside `fn` at once — 1 for an exclusive lock (checked), ' +
      'the number of loops when readers share.',
  ].join('\n\n');
}

/** Throughput per mode and lock, log scale (no lock is an order of magnitude above the rest). */
export function throughputChart(results: readonly LockCaseResult[], settings: LocksSettings): ChartSpec {
  return {
    title: 'Lock acquire/release throughput',
    subtitle: `median of ${settings.rounds} rounds × ${settings.roundMs} ms; whiskers: min–max`,
    categories: settings.modes.map((m) => modeTitle(m, settings)),
    series: settings.variants.map((variant) => ({
      name: LOCK_VARIANTS[variant].label,
      color: colorOf(variant),
      points: settings.modes.map((mode) => {
        const r = find(results, mode, variant);
        return r ? { value: r.opsPerSec.median, min: r.opsPerSec.min, max: r.opsPerSec.max } : null;
      }),
    })),
    yLabel: 'acquire/release per second (log scale)',
    yScale: 'log',
  };
}

/** Ratio to the bare async-mutex Mutex per mode and lock, with paired-round ranges. */
export function ratioChart(results: readonly LockCaseResult[], settings: LocksSettings): ChartSpec {
  const variants = settings.variants.filter((v) => v !== BASELINE_VARIANT);
  return {
    title: 'Throughput relative to a bare async-mutex Mutex',
    subtitle:
      'ratio of medians; whiskers: min–max of per-round ratios; dashed line: 1× = as fast as the baseline',
    categories: settings.modes.map((m) => modeTitle(m, settings)),
    series: variants.map((variant) => ({
      name: LOCK_VARIANTS[variant].label,
      color: colorOf(variant),
      points: settings.modes.map((mode) => {
        const r = find(results, mode, variant);
        return r ? { value: r.vsBaseline.ratio, min: r.vsBaseline.min, max: r.vsBaseline.max } : null;
      }),
    })),
    yLabel: '× async-mutex (log scale)',
    yScale: 'log',
    formatValue: (v) => `${v >= 10 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toPrecision(2)}×`,
    referenceLine: { value: 1, label: 'async-mutex' },
  };
}
