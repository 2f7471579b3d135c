import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderPng, type PngOptions } from './png.js';

/** Where a run stands, as recorded in `comparison.json`. */
export type RunStatus = 'running' | 'complete' | 'failed' | 'interrupted';

/** The shape of `comparison.json`: rewritten after every recorded entry, so a crash keeps what was measured. */
export interface ComparisonFile {
  scenario: string;
  status: RunStatus;
  startedAt: string;
  updatedAt: string;
  /** One entry per compared case (a mix, a mode/lock pair), in the order they were measured. */
  entries: Record<string, unknown>;
  error?: string;
}

/** A chart written by {@link ResultsWriter.writeChart}, with paths relative to the results folder. */
export interface ChartFile {
  name: string;
  title: string;
  svg: string;
  /** Missing when the PNG could not be made; `pngSkipped` says why. */
  png?: string;
  pngSkipped?: string;
}

/** Options of {@link ResultsWriter}. */
export interface ResultsWriterOptions {
  /** Options of the PNG rendering of charts. Default: DejaVu Sans from the system font folder. */
  png?: PngOptions;
  /** Clock for timestamps. Default: `() => new Date()`. */
  now?: () => Date;
}

function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return cleaned || 'unnamed';
}

/**
 * Everything a scenario leaves behind, in one folder:
 *
 * - `cases/<case>.json`: one file per measured case (raw rounds and their summary);
 * - `comparison.json`: the side-by-side figures, rewritten atomically after every entry;
 * - `config.json`, `environment.json`, `commands.txt` (every command line run), `run.log`, `logs/`;
 * - charts (`<name>.svg`, `<name>.png`, listed with their titles in `charts.json`) and `report.md`.
 *
 * Writes are synchronous and whole-file files are replaced by rename, so a run that crashes or is
 * killed between two cases leaves valid JSON holding every case finished before it.
 *
 * @example
 * ```ts
 * const results = new ResultsWriter('results/2024-01-01T000000Z-locks', 'locks');
 * results.writeCase('contended-mutex', { rounds });
 * results.recordComparison('contended/mutex', { medianOpsPerSec, ratio });
 * results.finishComparison('complete');
 * ```
 */
export class ResultsWriter {
  readonly dir: string;
  readonly scenario: string;
  readonly #charts: ChartFile[] = [];
  readonly #comparison: ComparisonFile;
  readonly #png: PngOptions;
  readonly #now: () => Date;

  constructor(dir: string, scenario: string, options: ResultsWriterOptions = {}) {
    this.dir = path.resolve(dir);
    this.scenario = scenario;
    this.#png = options.png ?? {};
    this.#now = options.now ?? (() => new Date());
    mkdirSync(this.dir, { recursive: true });
    const at = this.#now().toISOString();
    this.#comparison = { scenario, status: 'running', startedAt: at, updatedAt: at, entries: {} };
    this.#writeComparison();
  }

  /** Charts written so far. */
  get charts(): readonly ChartFile[] {
    return this.#charts;
  }

  /** The absolute path of a file in the results folder. */
  path(relative: string): string {
    return path.join(this.dir, relative);
  }

  /** Writes a whole text file atomically (temporary file, then rename). */
  writeText(relative: string, text: string): string {
    const target = this.path(relative);
    mkdirSync(path.dirname(target), { recursive: true });
    const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
    writeFileSync(temp, text);
    renameSync(temp, target);
    return target;
  }

  /** Writes pretty JSON atomically; throws before touching the file if `data` cannot be serialised. */
  writeJson(relative: string, data: unknown): string {
    return this.writeText(relative, `${JSON.stringify(data, null, 2)}\n`);
  }

  /** Writes one case's raw data to `cases/<id>.json`. */
  writeCase(id: string, data: unknown): string {
    return this.writeJson(path.join('cases', `${safeName(id)}.json`), data);
  }

  /** Adds or replaces one comparison entry and rewrites `comparison.json` at once. */
  recordComparison(key: string, entry: unknown): void {
    // Serialise first: an entry that cannot be written must not cost the entries already there.
    JSON.stringify(entry);
    this.#comparison.entries[key] = entry;
    this.#comparison.updatedAt = this.#now().toISOString();
    this.#writeComparison();
  }

  /** Marks the comparison finished, failed or interrupted. */
  finishComparison(status: Exclude<RunStatus, 'running'>, error?: string): void {
    this.#comparison.status = status;
    this.#comparison.updatedAt = this.#now().toISOString();
    if (error !== undefined) this.#comparison.error = error;
    this.#writeComparison();
  }

  /** The comparison as written so far. */
  comparison(): Readonly<ComparisonFile> {
    return structuredClone(this.#comparison);
  }

  writeConfig(config: unknown): string {
    return this.writeJson('config.json', config);
  }

  /** Appends one command line (with an optional note) to `commands.txt`. */
  recordCommand(commandLine: string, note?: string): void {
    const stamp = this.#now().toISOString();
    appendFileSync(this.path('commands.txt'), `# ${stamp}${note ? ` ${note}` : ''}\n${commandLine}\n`);
  }

  /** Appends a timestamped line to `run.log`. */
  log(message: string): void {
    appendFileSync(this.path('run.log'), `${this.#now().toISOString()} ${message}\n`);
  }

  /** A path under `logs/` for the output of a worker, child process or server. */
  logPath(name: string): string {
    const dir = this.path('logs');
    mkdirSync(dir, { recursive: true });
    return path.join(dir, `${safeName(name)}.log`);
  }

  /** Writes `<name>.svg` and, when it can be rendered, `<name>.png`. */
  async writeChart(name: string, title: string, svg: string): Promise<ChartFile> {
    const base = safeName(name);
    this.writeText(`${base}.svg`, svg);
    const chart: ChartFile = { name: base, title, svg: `${base}.svg` };
    const png = await renderPng(svg, this.#png);
    if (png.ok) {
      const target = this.path(`${base}.png`);
      writeFileSync(target, png.png);
      chart.png = `${base}.png`;
    } else {
      chart.pngSkipped = png.reason;
      this.log(`PNG of chart ${base} skipped: ${png.reason}`);
    }
    this.#charts.push(chart);
    // The list of charts with their titles, for the combined report of `all`.
    this.writeJson('charts.json', this.#charts);
    return chart;
  }

  writeReport(markdown: string): string {
    return this.writeText('report.md', markdown.endsWith('\n') ? markdown : `${markdown}\n`);
  }

  #writeComparison(): void {
    this.writeJson('comparison.json', this.#comparison);
  }
}
