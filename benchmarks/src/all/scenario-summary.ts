// What a registered scenario contributes to the report of `benchmarks:all`: the source's table
// as published, and a reader that turns the scenario's own results folder (its comparison JSON
// first) into the same table with our figures, the headline ratio and the goals. The report
// generator knows no scenario by name; a new scenario plugs in by declaring one of these.
import type { TableColumn } from '../harness/index.js';
import type { PublishedTable } from './published-tables.js';
import type { ScenarioResultsFolder } from './scenario-results-folder.js';

/** A table ready for Markdown and HTML: header cells and rows of plain-text cells. */
export interface FigureTable {
  /** One line above the table: what the cells are. */
  caption: string;
  columns: TableColumn[];
  rows: string[][];
}

/** A measured value with the range it moved in (per-round ratios, or min–max of rounds). */
export interface RangedValue {
  value: number;
  min: number;
  max: number;
}

/** One of our ratios beside the source's ratio of the same row. */
export interface RatioFigure {
  /** The row of the source's table it belongs to, e.g. `90:10`. */
  row: string;
  /** What is divided by what, e.g. `fixed / original requests/s`. */
  label: string;
  /** Ours; null when this run did not measure it. */
  ours: RangedValue | null;
  /** The source's, from its table; null when the source has no such figure. */
  source: number | null;
}

/** The one figure a scenario is read by: a ratio, ours against the source's. */
export interface Headline extends RatioFigure {
  /** Which way is good: a faster path is `higher`, a shorter time is `lower`. */
  better: 'higher' | 'lower';
}

/** One goal of the scenario, held against this run's figure (shown, never enforced). */
export interface GoalResult {
  goal: string;
  target: string;
  measured: string;
  /** null: not measured in this run. */
  met: boolean | null;
}

/** What a scenario's results folder says, in the shape of the combined report. */
export interface ScenarioFigures {
  /** Ours, in the layout of the source's table (or of the scenario's own, without a source). */
  table: FigureTable | null;
  ratios: RatioFigure[];
  headline: Headline | null;
  goals: GoalResult[];
  /** Short remarks a reader needs beside the tables (what differs from the source's set-up). */
  notes: string[];
}

/** Tools whose versions the report lists when a scenario of the run uses them. */
export type UsedTool = 'java' | 'zookeeper' | 'hadoop' | 'ozone';

/**
 * A scenario's part in `benchmarks:all`. `F` is what the scenario's `parseFlags` returns; the
 * orchestrator parses flags with the defaults of the profile (`--quick` or not) to plan the run.
 */
export interface ScenarioSummary<F = unknown> {
  /** The source document's headline table, or null for a scenario of fastpath's own. */
  readonly source: PublishedTable | null;
  /** Tools a run of this scenario with these flags uses, for the machine table of the report. */
  uses(flags: F, quick: boolean): readonly UsedTool[];
  /** How many cases the run has, for "case j of m" in the progress line. */
  cases(flags: F, quick: boolean): number;
  /** About how long the run takes on this machine kind, in ms: the ETA before it has started. */
  estimateMs(flags: F, quick: boolean): number;
  /** Reads the results folder; throws when it cannot (the report then says why). */
  read(folder: ScenarioResultsFolder): ScenarioFigures;
}

/** Divides two medians and their ranges, for a ratio taken from unpaired figures. */
export function rangedRatio(candidate: RangedValue, baseline: RangedValue): RangedValue {
  return {
    value: candidate.value / baseline.value,
    min: candidate.min / baseline.max,
    max: candidate.max / baseline.min,
  };
}
