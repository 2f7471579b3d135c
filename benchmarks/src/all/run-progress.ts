import { estimateRemainingMs, formatClock } from '../harness/index.js';

/** Where the whole run of `all` stands, as the orchestrator knows it. */
export interface RunProgressInput {
  /** 0-based index of the running scenario, and how many the run has. */
  index: number;
  count: number;
  name: string;
  /** Cases of the running scenario, from its flags. */
  cases: number;
  /** The running scenario's own progress: fraction done (0..1), time since it started, what runs. */
  fraction: number;
  scenarioElapsedMs: number;
  detail: string;
  /** Estimated durations, in ms, of every scenario of the run, in run order. */
  estimatesMs: readonly number[];
}

/** The state of the whole-run progress line: units are estimated milliseconds of work. */
export interface RunProgressState {
  label: string;
  done: number;
  total: number;
  detail: string;
}

/**
 * The whole-run line: "[i/n] name · case j/m", the running scenario's own percentage and ETA, and
 * what runs now; `done`/`total` count estimated work, so the line's ETA (elapsed × left ÷ done)
 * follows the pace the run actually has on this machine.
 */
export function runProgressState(p: RunProgressInput): RunProgressState {
  const fraction = Math.min(1, Math.max(0, p.fraction));
  const before = p.estimatesMs.slice(0, p.index).reduce((a, b) => a + b, 0);
  const current = p.estimatesMs[p.index] ?? 0;
  const total = p.estimatesMs.reduce((a, b) => a + b, 0);
  const caseNo = p.cases > 0 ? Math.min(p.cases, Math.floor(fraction * p.cases) + 1) : 0;
  // The scenario's own ETA once it has reported progress; its estimate before.
  const own =
    fraction > 0
      ? estimateRemainingMs({ label: p.name, done: fraction, total: 1, elapsedMs: p.scenarioElapsedMs })
      : Math.max(0, current - p.scenarioElapsedMs);
  const parts = [
    `${p.name} ${Math.floor(fraction * 100)}%`,
    `its ETA ${own === undefined ? '?' : formatClock(own)}`,
  ];
  if (p.detail) parts.push(p.detail);
  return {
    label: `[${p.index + 1}/${p.count}] ${p.name}${caseNo ? ` · case ${caseNo}/${p.cases}` : ''}`,
    done: before + fraction * current,
    total,
    detail: parts.join(' · '),
  };
}
