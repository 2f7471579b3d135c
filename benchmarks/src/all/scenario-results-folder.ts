import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunStatus } from '../harness/index.js';
import { asRecord, stringField, type JsonRecord } from './json-fields.js';

/** A chart of a scenario, as the combined report shows it. */
export interface ScenarioChart {
  name: string;
  title: string;
  /** Relative to the scenario's folder. */
  svg: string;
}

/**
 * One scenario's results folder, read back for the combined report: its comparison JSON, any
 * other JSON file in it, and its charts. Everything read is unchecked JSON (`unknown`).
 */
export interface ScenarioResultsFolder {
  readonly name: string;
  /** Absolute path of the folder. */
  readonly dir: string;
  /** `comparison.json`'s `status`; `running` when the run stopped without saying how it ended. */
  readonly status: RunStatus;
  /** `comparison.json`'s `entries`. */
  readonly entries: JsonRecord;
  /** `comparison.json`'s `error`, when it has one. */
  readonly error: string | null;
  readonly charts: readonly ScenarioChart[];
  /** A JSON file of the folder, parsed; undefined when it is missing or not JSON. */
  readJson(relative: string): unknown;
  exists(relative: string): boolean;
}

const STATUSES: readonly RunStatus[] = ['running', 'complete', 'failed', 'interrupted'];

function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** `charts.json` as the results writer keeps it, else every SVG of the folder by name. */
function listCharts(dir: string): ScenarioChart[] {
  const listed = readJsonFile(path.join(dir, 'charts.json'));
  if (Array.isArray(listed)) {
    return listed.flatMap((item) => {
      const chart = asRecord(item);
      const name = stringField(chart, 'name');
      const svg = stringField(chart, 'svg');
      return name !== null && svg !== null && existsSync(path.join(dir, svg))
        ? [{ name, svg, title: stringField(chart, 'title') ?? name }]
        : [];
    });
  }
  return readdirSync(dir)
    .filter((file) => file.endsWith('.svg'))
    .sort()
    .map((svg) => ({ name: svg.slice(0, -4), title: svg.slice(0, -4), svg }));
}

/** Opens a scenario's folder; undefined when it has no readable `comparison.json`. */
export function openScenarioFolder(dir: string, name: string): ScenarioResultsFolder | undefined {
  const comparison = asRecord(readJsonFile(path.join(dir, 'comparison.json')));
  if (!comparison) return undefined;
  const status = stringField(comparison, 'status');
  return {
    name,
    dir,
    status: STATUSES.find((s) => s === status) ?? 'running',
    entries: asRecord(comparison.entries) ?? {},
    error: stringField(comparison, 'error'),
    charts: listCharts(dir),
    readJson: (relative) => readJsonFile(path.join(dir, relative)),
    exists: (relative) => existsSync(path.join(dir, relative)),
  };
}

/** The entries of a comparison whose key matches, with their key. */
export function entriesMatching(
  folder: ScenarioResultsFolder,
  pattern: RegExp,
): { key: string; match: RegExpMatchArray; entry: JsonRecord }[] {
  return Object.entries(folder.entries).flatMap(([key, value]) => {
    const match = key.match(pattern);
    const entry = asRecord(value);
    return match && entry ? [{ key, match, entry }] : [];
  });
}
