import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Environment, RunStatus } from '../harness/index.js';
import type { PublishedTable } from './published-tables.js';
import { MANIFEST_FILE, readManifest, type RunManifest, type ScenarioRunRecord } from './run-manifest.js';
import { openScenarioFolder } from './scenario-results-folder.js';
import type { RangedValue, ScenarioFigures, ScenarioSummary } from './scenario-summary.js';

/** What the report generator needs of the registry: each scenario's name, title and summary. */
export interface ReportableScenario {
  readonly scenario: { readonly name: string; readonly title: string };
  readonly source: string;
  readonly summary: ScenarioSummary;
}

export interface ReportChart {
  title: string;
  /** Relative to the run's folder. */
  file: string;
  /** The SVG document itself, for inlining. */
  svg: string;
}

export interface ReportLink {
  label: string;
  /** Relative to the run's folder; only files that exist are linked. */
  href: string;
}

/** One scenario's section of the combined report. */
export interface ScenarioSection {
  record: ScenarioRunRecord;
  published: PublishedTable | null;
  figures: ScenarioFigures | null;
  /** Why there are no figures (not run, no results folder, a reader error). */
  figuresMissing: string | null;
  /** `comparison.json`'s own status, when the folder has one. */
  resultsStatus: RunStatus | null;
  charts: ReportChart[];
  links: ReportLink[];
}

/** How this run's headline stands against an older run's. */
export interface HeadlineComparison {
  older: RangedValue | null;
  verdict: 'regression' | 'improvement' | 'within range' | 'not in the older run' | 'not measured';
}

export interface RunReport {
  dir: string;
  manifest: RunManifest;
  sections: ScenarioSection[];
  /** Every planned scenario ran and completed. */
  complete: boolean;
  compared: { dir: string; headlines: Map<string, HeadlineComparison> } | null;
}

function readSvg(file: string): string {
  // Inline: an XML prolog or doctype is not allowed inside HTML.
  return readFileSync(file, 'utf8')
    .replace(/^\s*<\?xml[^>]*\?>\s*/, '')
    .replace(/^\s*<!DOCTYPE[^>]*>\s*/i, '');
}

function section(
  runDir: string,
  record: ScenarioRunRecord,
  entry: ReportableScenario | undefined,
): ScenarioSection {
  const dir = path.join(runDir, record.dir);
  const folder = existsSync(dir) ? openScenarioFolder(dir, record.name) : undefined;
  const out: ScenarioSection = {
    record,
    published: entry?.summary.source ?? null,
    figures: null,
    figuresMissing: null,
    resultsStatus: folder?.status ?? null,
    charts: [],
    links: [],
  };
  if (!entry) out.figuresMissing = `"${record.name}" is not a registered scenario`;
  else if (!folder)
    out.figuresMissing =
      record.status === 'not run' || record.status === 'pending'
        ? 'not run'
        : 'its results folder has no readable comparison.json';
  else {
    try {
      out.figures = entry.summary.read(folder);
    } catch (err) {
      out.figuresMissing = `its results could not be read: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  if (folder) {
    out.charts = folder.charts.map((c) => ({
      title: c.title,
      file: path.join(record.dir, c.svg),
      svg: readSvg(path.join(dir, c.svg)),
    }));
    for (const [label, file] of [
      ['its own report', 'report.md'],
      ['raw figures (comparison.json)', 'comparison.json'],
      ['per-case JSON', 'cases'],
      ['run log', 'run.log'],
    ] as const) {
      if (existsSync(path.join(dir, file))) out.links.push({ label, href: path.join(record.dir, file) });
    }
  }
  return out;
}

/**
 * A folder written by the `all` of an earlier harness has no `run.json`: its scenarios are the
 * subfolders named after registered scenarios.
 */
function manifestOf(runDir: string, registry: readonly ReportableScenario[]): RunManifest {
  if (existsSync(path.join(runDir, MANIFEST_FILE)) || !existsSync(runDir)) return readManifest(runDir);
  const names = new Set(readdirSync(runDir));
  const scenarios = registry
    .filter(
      (r) => names.has(r.scenario.name) && existsSync(path.join(runDir, r.scenario.name, 'comparison.json')),
    )
    .map((r): ScenarioRunRecord => ({
      name: r.scenario.name,
      title: r.scenario.title,
      source: r.source,
      status:
        openScenarioFolder(path.join(runDir, r.scenario.name), r.scenario.name)?.status === 'complete'
          ? 'complete'
          : 'failed',
      dir: r.scenario.name,
      command: null,
      startedAt: null,
      tookMs: null,
      exitCode: null,
      error: null,
      cases: 0,
      estimateMs: 0,
    }));
  if (scenarios.length === 0) return readManifest(runDir);
  const env = JSON.parse(
    readFileSync(path.join(runDir, scenarios[0]!.dir, 'environment.json'), 'utf8'),
  ) as Environment;
  return {
    kind: 'fastpath-benchmarks-all',
    command: '(unknown: a run without run.json)',
    processCommand: '',
    cwd: runDir,
    quick: false,
    only: null,
    startedAt: env.capturedAt,
    finishedAt: null,
    status: scenarios.every((s) => s.status === 'complete') ? 'complete' : 'incomplete',
    stopped: null,
    machine: { java: null, zookeeper: null, hadoop: null, ozone: null, ...env },
    scenarios,
  };
}

/** The verdict of one headline against the older run's range of the same headline. */
export function compareHeadline(
  current: ScenarioFigures['headline'],
  older: ScenarioFigures['headline'] | undefined,
): HeadlineComparison {
  if (older === undefined) return { older: null, verdict: 'not in the older run' };
  const o = older?.ours ?? null;
  if (!current?.ours || !o) return { older: o, verdict: 'not measured' };
  const v = current.ours.value;
  if (v >= o.min && v <= o.max) return { older: o, verdict: 'within range' };
  const above = v > o.max;
  const good = current.better === 'higher' ? above : !above;
  return { older: o, verdict: good ? 'improvement' : 'regression' };
}

/**
 * Reads a run of `all` (its `run.json` and every scenario's folder) into the model both report
 * files are rendered from; with `compareDir`, an older run's headlines beside this run's.
 */
export function buildRunReport(
  runDir: string,
  registry: readonly ReportableScenario[],
  options: { compareDir?: string } = {},
): RunReport {
  const manifest = manifestOf(runDir, registry);
  const byName = (name: string) => registry.find((r) => r.scenario.name === name);
  const sections = manifest.scenarios.map((record) => section(runDir, record, byName(record.name)));
  let compared: RunReport['compared'] = null;
  if (options.compareDir !== undefined) {
    const older = buildRunReport(options.compareDir, registry);
    const headlines = new Map<string, HeadlineComparison>();
    for (const s of sections) {
      const o = older.sections.find((x) => x.record.name === s.record.name);
      headlines.set(
        s.record.name,
        compareHeadline(s.figures?.headline ?? null, o ? (o.figures?.headline ?? null) : undefined),
      );
    }
    compared = { dir: options.compareDir, headlines };
  }
  return {
    dir: runDir,
    manifest,
    sections,
    complete: manifest.status === 'complete' && sections.every((s) => s.record.status === 'complete'),
    compared,
  };
}
