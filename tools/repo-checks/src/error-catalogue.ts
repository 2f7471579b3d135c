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
