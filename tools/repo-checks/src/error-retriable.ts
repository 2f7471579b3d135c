import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogueRows } from './error-catalogue.js';

// An error class fixes its code and `retriable` in its `super(...)` call (docs/errors.md); the
// retriable column of docs/errors.md says the same of every code. This reads both sides.

/** What one `super('ERR_…', …)` call says of `retriable`. */
export interface RetriableSite {
  code: string;
  file: string;
  line: number;
  /** `true`/`false` when the call says so or leaves the base class's default (`false`). */
  retriable: boolean;
}

const SUPER_WITH_CODE = /\bsuper\(\s*['"`](ERR_[A-Z0-9_]*[A-Z0-9])['"`]/g;

/** The text of the call that opens at `open` (the index of its `(`), up to the matching `)`. */
function callText(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

/** The base class of the class declaration that encloses `index` (the nearest one before it). */
function baseClassAt(text: string, index: number): string | undefined {
  let base: string | undefined;
  for (const m of text.slice(0, index).matchAll(/\bclass\s+\w+\s+extends\s+([\w.]+)/g)) base = m[1];
  return base;
}

/**
 * The `super('ERR_…', …)` calls of one file whose `retriable` is known from the text. In a class
 * that extends `FastpathError` itself: a literal `retriable: true|false` in its options, or none
 * (the base class's default, `false`). In a class of a code family (it extends the family's base,
 * whose signature may differ): only a literal `retriable: …` or a literal `true`/`false` as the
 * last argument (the family's flag). A call that passes `retriable` from a variable is left out:
 * its value is decided at run time.
 */
export function retriableSitesIn(file: string, text: string): RetriableSite[] {
  const sites: RetriableSite[] = [];
  for (const m of text.matchAll(SUPER_WITH_CODE)) {
    const call = callText(text, m.index + m[0].indexOf('('));
    const named = /\bretriable:\s*(true|false)\b/.exec(call)?.[1];
    let retriable: boolean | undefined;
    if (named !== undefined) retriable = named === 'true';
    else if (/\bretriable\b/.test(call)) retriable = undefined;
    else if (baseClassAt(text, m.index) === 'FastpathError') retriable = false;
    else {
      const last = /,\s*(true|false)\s*,?\s*\)$/.exec(call)?.[1];
      retriable = last === undefined ? undefined : last === 'true';
    }
    if (retriable === undefined) continue;
    sites.push({ code: m[1] as string, file, line: text.slice(0, m.index).split('\n').length, retriable });
  }
  return sites;
}

/** The retriable column of every table of docs/errors.md that has one: code → yes (true) / no (false). */
export function retriableColumnOf(markdown: string): Map<string, boolean> {
  const rows = new Map<string, boolean>();
  for (const { code, cell } of catalogueRows(markdown)) {
    const value = cell((h) => h === 'retriable');
    if (value === 'yes' || value === 'no') rows.set(code, value === 'yes');
  }
  return rows;
}

/** Where a class's `super(...)` call and docs/errors.md disagree on `retriable`, one line each. */
export function compareRetriable(
  sites: readonly RetriableSite[],
  documented: Map<string, boolean>,
): string[] {
  const yesNo = (v: boolean): string => (v ? 'yes' : 'no');
  return sites
    .filter((s) => documented.has(s.code) && documented.get(s.code) !== s.retriable)
    .map(
      (s) =>
        `${s.code}: docs/errors.md says retriable ${yesNo(documented.get(s.code) as boolean)}, ${s.file}:${s.line} constructs it retriable ${yesNo(s.retriable)}`,
    );
}

/** The check over the sources of the packages and tools (tests excepted). */
export function checkRetriableColumn(
  root: string,
  files: readonly string[],
  cataloguePath = 'docs/errors.md',
): string[] {
  const sites = files
    .filter((f) => !/\.test\.[cm]?[jt]s$/.test(f) && !/(^|\/)test\//.test(f))
    .flatMap((f) => retriableSitesIn(f, readFileSync(join(root, f), 'utf8')));
  return compareRetriable(sites, retriableColumnOf(readFileSync(join(root, cataloguePath), 'utf8')));
}
