import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const CODE = /['"`](ERR_[A-Z0-9_]*[A-Z0-9])['"`]/g;

/** Error codes thrown by product code: string literals `'ERR_…'` outside tests. */
export function codesInSources(root: string, files: readonly string[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of files) {
    if (/\.test\.[cm]?[jt]s$/.test(file) || /(^|\/)test\//.test(file)) continue;
    for (const m of readFileSync(join(root, file), 'utf8').matchAll(CODE)) {
      const code = m[1] as string;
      found.set(code, [...(found.get(code) ?? []), file]);
    }
  }
  return found;
}

/** Codes listed in the catalogue: the first column of its tables, written as `` `ERR_…` ``. */
export function codesInCatalogue(markdown: string): Set<string> {
  const codes = new Set<string>();
  for (const line of markdown.split('\n')) {
    const m = /^\|\s*`(ERR_[A-Z0-9_]+)`\s*\|/.exec(line);
    if (m) codes.add(m[1] as string);
  }
  return codes;
}

export interface CatalogueDiff {
  /** Thrown somewhere but not documented. */
  missing: Array<{ code: string; files: string[] }>;
  /** Documented but thrown nowhere. */
  stale: string[];
}

export function compareCatalogue(
  root: string,
  files: readonly string[],
  cataloguePath = 'docs/errors.md',
): CatalogueDiff {
  const inCode = codesInSources(root, files);
  const documented = codesInCatalogue(readFileSync(join(root, cataloguePath), 'utf8'));
  return {
    missing: [...inCode]
      .filter(([code]) => !documented.has(code))
      .map(([code, where]) => ({ code, files: [...new Set(where)] })),
    stale: [...documented].filter((code) => !inCode.has(code)).sort(),
  };
}

/** What one side says of a code that kms-server answers over HTTP. `undefined` where it says nothing. */
export interface HttpAnswerRow {
  status: number | undefined;
  retriable: boolean | undefined;
}

/**
 * The rows of the catalogue's tables that have an HTTP column (kms-server's, and the packages'
 * whose errors reach it): code → status (`undefined` for "—") and retriable (`yes`/`no`).
 */
export function httpColumnsInCatalogue(markdown: string): Map<string, HttpAnswerRow> {
  const rows = new Map<string, HttpAnswerRow>();
  for (const { code, cell } of catalogueRows(markdown)) {
    const http = cell((h) => h.startsWith('HTTP'));
    if (http === undefined) continue;
    const status = /^(\d{3})\b/.exec(http)?.[1];
    const retriable = cell((h) => h === 'retriable');
    rows.set(code, {
      status: status === undefined ? undefined : Number(status),
      retriable: retriable === 'yes' ? true : retriable === 'no' ? false : undefined,
    });
  }
  return rows;
}

/** One code's row of a docs/errors.md table; `cell` finds a cell by its column's header. */
export interface CatalogueRow {
  code: string;
  /** The cell under the first header `header` accepts; undefined when the table has no such column. */
  cell: (header: (name: string) => boolean) => string | undefined;
}

/** Every row of every table of docs/errors.md whose first column is the code (`` `ERR_…` ``). */
export function catalogueRows(markdown: string): CatalogueRow[] {
  const rows: CatalogueRow[] = [];
  let headers: string[] | undefined;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      headers = undefined;
      continue;
    }
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells[0] === 'code') {
      headers = cells;
      continue;
    }
    const code = /^`(ERR_[A-Z0-9_]+)`$/.exec(cells[0] ?? '')?.[1];
    if (headers === undefined || code === undefined) continue;
    const tableHeaders = headers;
    rows.push({
      code,
      cell: (header) => {
        const at = tableHeaders.findIndex(header);
        return at === -1 ? undefined : cells[at];
      },
    });
  }
  return rows;
}

/**
 * kms-server's code table read from its source: the rows of `KMS_ERROR_CATALOGUE`
 * (`ERR_X: { retriable: …, http: answer(<status>, …) | undefined }`) and of
 * `FOREIGN_ERROR_ANSWERS` (`ERR_X: answer(<status>, …)`, retriable left to their packages).
 */
export function httpRowsInSource(source: string): Map<string, HttpAnswerRow> {
  const rows = new Map<string, HttpAnswerRow>();
  const block = (name: string): string => {
    const start = source.indexOf(`${name} = `);
    if (start === -1) return '';
    const end = source.indexOf('satisfies', start);
    return source.slice(start, end === -1 ? undefined : end);
  };
  const own = /(ERR_[A-Z0-9_]+): \{\s*retriable: (true|false),\s*http:\s*(?:undefined|answer\(\s*(\d{3}))/g;
  for (const m of block('KMS_ERROR_CATALOGUE').matchAll(own)) {
    rows.set(m[1] as string, {
      retriable: m[2] === 'true',
      status: m[3] === undefined ? undefined : Number(m[3]),
    });
  }
  for (const m of block('FOREIGN_ERROR_ANSWERS').matchAll(/(ERR_[A-Z0-9_]+): answer\(\s*(\d{3})/g)) {
    rows.set(m[1] as string, { retriable: undefined, status: Number(m[2]) });
  }
  return rows;
}

/** Where the HTTP and retriable columns of docs/errors.md disagree with kms-server's table. */
export function compareHttpColumns(
  documented: Map<string, HttpAnswerRow>,
  table: Map<string, HttpAnswerRow>,
): string[] {
  const problems: string[] = [];
  const show = (status: number | undefined): string => (status === undefined ? '—' : String(status));
  for (const [code, row] of table) {
    const doc = documented.get(code);
    if (doc === undefined) {
      problems.push(
        `${code} answers ${show(row.status)} but has no row with an HTTP column in docs/errors.md`,
      );
      continue;
    }
    if (doc.status !== row.status)
      problems.push(`${code}: docs/errors.md says HTTP ${show(doc.status)}, the table ${show(row.status)}`);
    if (row.retriable !== undefined && doc.retriable !== row.retriable)
      problems.push(
        `${code}: docs/errors.md says retriable ${String(doc.retriable)}, the table ${String(row.retriable)}`,
      );
  }
  for (const [code, doc] of documented) {
    if (doc.status !== undefined && !table.has(code))
      problems.push(
        `${code}: docs/errors.md says HTTP ${doc.status}, but kms-server's table has no row for it`,
      );
  }
  return problems;
}
