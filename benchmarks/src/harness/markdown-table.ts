import { BenchmarkInputError } from './benchmark-errors.js';

/** A column of {@link markdownTable}: its header and how its cells line up. */
export interface TableColumn {
  header: string;
  /** Default: `'left'`. Numbers read best `'right'`. */
  align?: 'left' | 'right' | 'center';
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function pad(text: string, width: number, align: TableColumn['align']): string {
  const gap = width - [...text].length;
  if (gap <= 0) return text;
  if (align === 'right') return ' '.repeat(gap) + text;
  if (align === 'center') return ' '.repeat(gap >> 1) + text + ' '.repeat(gap - (gap >> 1));
  return text + ' '.repeat(gap);
}

function rule(width: number, align: TableColumn['align']): string {
  const w = Math.max(3, width);
  if (align === 'right') return '-'.repeat(w - 1) + ':';
  if (align === 'center') return ':' + '-'.repeat(w - 2) + ':';
  return '-'.repeat(w);
}

/**
 * A GitHub-flavoured Markdown table whose cells are padded, so it reads as well in a terminal as
 * rendered. Pipes in cells are escaped and line breaks become spaces. A row shorter than the
 * header is padded with empty cells; a longer one is an error.
 *
 * @example
 * ```ts
 * markdownTable([{ header: 'lock' }, { header: 'ops/s', align: 'right' }], [['mutex', '1.2 M']]);
 * // | lock  | ops/s |
 * // |-------|------:|
 * // | mutex | 1.2 M |
 * ```
 */
export function markdownTable(
  columns: readonly (string | TableColumn)[],
  rows: readonly (readonly string[])[],
): string {
  const cols: TableColumn[] = columns.map((c) => (typeof c === 'string' ? { header: c } : c));
  if (cols.length === 0) throw new BenchmarkInputError('markdownTable: no columns');
  const body = rows.map((row, i) => {
    if (row.length > cols.length) {
      throw new BenchmarkInputError(
        `markdownTable: row ${i} has ${row.length} cells for ${cols.length} columns`,
      );
    }
    return cols.map((_, j) => escapeCell(row[j] ?? ''));
  });
  const headers = cols.map((c) => escapeCell(c.header));
  const widths = cols.map((c, j) =>
    Math.max(c.align === 'center' ? 5 : 3, [...headers[j]!].length, ...body.map((r) => [...r[j]!].length)),
  );
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, j) => pad(cell, widths[j]!, cols[j]!.align)).join(' | ')} |`;
  return [
    line(headers),
    `|${cols.map((c, j) => rule(widths[j]! + 2, c.align)).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}
