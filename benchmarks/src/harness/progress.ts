import { formatClock } from './format.js';

/** Where a {@link Progress} writes: `process.stderr` or anything with `write`. */
export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
}

/** Options of {@link Progress}. */
export interface ProgressOptions {
  /** Default: `process.stderr`, so stdout carries only the tables. */
  stream?: ProgressStream;
  /** One line redrawn in place (true) or plain lines now and then (false). Default: `stream.isTTY`. */
  tty?: boolean;
  /** Without a TTY (CI, a pipe, a log file): at most one line per this many ms. Default: 5000. */
  plainIntervalMs?: number;
  /** On a TTY: redraw at most this often, in ms. Default: 100. */
  ttyRefreshMs?: number;
  /** Redraw on a timer too, so elapsed time moves while a long step runs. Default: true. */
  autoRefresh?: boolean;
  /** Clock in ms. Default: `performance.now`. */
  now?: () => number;
  /**
   * Told of every change, unthrottled: the state after it (`active` false once ended), or a note.
   * The process of one scenario of `all` passes it on to the parent, which draws the whole run.
   */
  observer?: (event: ProgressEvent) => void;
}

/** What a {@link ProgressOptions.observer} is told. */
export type ProgressEvent =
  { kind: 'state'; active: boolean; state: ProgressState } | { kind: 'note'; message: string };

export const DEFAULT_PROGRESS_OPTIONS = Object.freeze({
  plainIntervalMs: 5000,
  ttyRefreshMs: 100,
  autoRefresh: true,
});

/** What one progress line shows. `done` and `total` are in any unit (ops, planned ms, cases). */
export interface ProgressState {
  label: string;
  done: number;
  total: number;
  elapsedMs: number;
  detail?: string;
}

/** Time left, extrapolated from the pace so far; undefined before anything is done. */
export function estimateRemainingMs(state: ProgressState): number | undefined {
  if (state.done >= state.total) return 0;
  if (state.done <= 0 || state.elapsedMs <= 0) return undefined;
  return (state.elapsedMs * (state.total - state.done)) / state.done;
}

const BAR_WIDTH = 20;

/**
 * One progress line: label, percentage (with a bar when `bar` is set), detail, elapsed and ETA,
 * cut to `width` characters when given.
 *
 * @example
 * ```ts
 * formatProgressLine({ label: 'locks', done: 25, total: 100, elapsedMs: 10_000, detail: 'mutex' });
 * // "locks  25% · mutex · elapsed 0:10 · ETA 0:30"
 * ```
 */
export function formatProgressLine(
  state: ProgressState,
  options: { bar?: boolean; width?: number } = {},
): string {
  const fraction = state.total > 0 ? Math.min(1, Math.max(0, state.done / state.total)) : 0;
  const percent = `${String(Math.floor(fraction * 100)).padStart(3)}%`;
  const parts = [state.label];
  if (options.bar) {
    const filled = Math.round(fraction * BAR_WIDTH);
    parts.push(`[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`);
  }
  parts.push(percent);
  let line = parts.join(' ');
  if (state.detail) line += ` · ${state.detail}`;
  const remaining = estimateRemainingMs(state);
  line += ` · elapsed ${formatClock(state.elapsedMs)} · ETA ${remaining === undefined ? '?' : formatClock(remaining)}`;
  if (options.width !== undefined && line.length > options.width) {
    line = options.width > 1 ? `${line.slice(0, options.width - 1)}…` : line.slice(0, options.width);
  }
  return line;
}

/**
 * The progress display of a run: a single line redrawn in place on a terminal; on CI or in a pipe,
 * a plain line every few seconds. Every line says what runs, how far it is, the elapsed time and
 * an ETA.
 *
 * @example
 * ```ts
 * const progress = new Progress();
 * progress.begin('locks', plannedMs);
 * progress.advance(roundMs, 'contended · mutex · round 2/5');
 * progress.end('locks done');
 * ```
 */
export class Progress {
  readonly tty: boolean;
  readonly #stream: ProgressStream;
  readonly #plainIntervalMs: number;
  readonly #ttyRefreshMs: number;
  readonly #autoRefresh: boolean;
  readonly #now: () => number;
  readonly #observer: ((event: ProgressEvent) => void) | undefined;
  #label = '';
  #total = 0;
  #done = 0;
  #detail = '';
  #startedAt = 0;
  #lastDrawAt = -Infinity;
  #lineShown = false;
  #active = false;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: ProgressOptions = {}) {
    this.#stream = options.stream ?? process.stderr;
    this.tty = options.tty ?? this.#stream.isTTY === true;
    this.#plainIntervalMs = options.plainIntervalMs ?? DEFAULT_PROGRESS_OPTIONS.plainIntervalMs;
    this.#ttyRefreshMs = options.ttyRefreshMs ?? DEFAULT_PROGRESS_OPTIONS.ttyRefreshMs;
    this.#autoRefresh = options.autoRefresh ?? DEFAULT_PROGRESS_OPTIONS.autoRefresh;
    this.#now = options.now ?? (() => performance.now());
    this.#observer = options.observer;
  }

  /** Starts a task of `total` units (any unit: ops, planned milliseconds, cases). */
  begin(label: string, total: number): void {
    this.#stopTimer();
    this.#label = label;
    this.#total = Math.max(0, total);
    this.#done = 0;
    this.#detail = '';
    this.#startedAt = this.#now();
    this.#active = true;
    this.#draw(true);
    this.#tell();
    if (this.#autoRefresh) {
      this.#timer = setInterval(() => this.#draw(false), this.tty ? 1000 : this.#plainIntervalMs);
      this.#timer.unref();
    }
  }

  /** Counts `units` more as done, and optionally says what runs now. */
  advance(units: number, detail?: string): void {
    this.#done += units;
    if (detail !== undefined) this.#detail = detail;
    this.#draw(false);
    this.#tell();
  }

  /** Says what runs now without counting progress. */
  setDetail(detail: string): void {
    this.#detail = detail;
    this.#draw(false);
    this.#tell();
  }

  /**
   * Sets what the line shows without starting a new task (the elapsed time keeps running): for a
   * display that follows work measured elsewhere, such as the whole run of `all`.
   */
  update(state: { label?: string; done?: number; total?: number; detail?: string }): void {
    if (state.label !== undefined) this.#label = state.label;
    if (state.done !== undefined) this.#done = state.done;
    if (state.total !== undefined) this.#total = Math.max(0, state.total);
    if (state.detail !== undefined) this.#detail = state.detail;
    this.#draw(false);
  }

  /** Prints a message on its own line without breaking the progress line. */
  note(message: string): void {
    this.#clearLine();
    this.#stream.write(`${message}\n`);
    if (this.#active && this.tty) this.#draw(true);
    this.#observer?.({ kind: 'note', message });
  }

  /** Ends the task: the last line stays, followed by `message` when given. */
  end(message?: string): void {
    if (this.#active) {
      this.#done = Math.max(this.#done, this.#total);
      this.#detail = 'done';
      this.#draw(true);
      if (this.tty && this.#lineShown) this.#stream.write('\n');
      this.#lineShown = false;
      this.#active = false;
      this.#tell();
    }
    this.#active = false;
    this.#stopTimer();
    if (message !== undefined) this.#stream.write(`${message}\n`);
  }

  /** The line as it would be drawn now. */
  line(): string {
    return formatProgressLine(this.#state(), {
      bar: this.tty,
      ...(this.tty && this.#stream.columns ? { width: this.#stream.columns - 1 } : {}),
    });
  }

  #state(): ProgressState {
    return {
      label: this.#label,
      done: this.#done,
      total: this.#total,
      elapsedMs: this.#now() - this.#startedAt,
      detail: this.#detail,
    };
  }

  #tell(): void {
    this.#observer?.({ kind: 'state', active: this.#active, state: this.#state() });
  }

  #draw(force: boolean): void {
    if (!this.#active) return;
    const now = this.#now();
    const interval = this.tty ? this.#ttyRefreshMs : this.#plainIntervalMs;
    if (!force && now - this.#lastDrawAt < interval) return;
    this.#lastDrawAt = now;
    if (this.tty) {
      this.#stream.write(`\r\x1b[2K${this.line()}`);
      this.#lineShown = true;
    } else {
      this.#stream.write(`${this.line()}\n`);
    }
  }

  #clearLine(): void {
    if (this.tty && this.#lineShown) {
      this.#stream.write('\r\x1b[2K');
      this.#lineShown = false;
    }
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
