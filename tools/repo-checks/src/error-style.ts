import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// A construction of the base class itself (`new FastpathError(`), not of a subclass.
const BARE_THROW = /\bnew\s+FastpathError\s*\(/g;

/** Where a source constructs `FastpathError` itself: `file:line`. */
export interface BareErrorSite {
  file: string;
  line: number;
}

/**
 * The one error style (docs/errors.md): outside `@fastpath/core`, which defines the base class,
 * every error is an instance of a subclass named after its code family, which fixes the code and
 * `retriable` in one place. A bare `new FastpathError(code, …)` picks both at the throw site, so
 * the sources of the packages and tools (tests excepted) may not contain one.
 */
export function bareFastpathErrors(root: string, files: readonly string[]): BareErrorSite[] {
  const sites: BareErrorSite[] = [];
  for (const file of files) {
    if (file.startsWith('packages/core/')) continue;
    if (/\.test\.[cm]?[jt]s$/.test(file) || /(^|\/)test\//.test(file)) continue;
    sites.push(...bareFastpathErrorsIn(file, readFileSync(join(root, file), 'utf8')));
  }
  return sites;
}

/** The bare constructions in one file's text (comments and strings are not told apart: none has one). */
export function bareFastpathErrorsIn(file: string, text: string): BareErrorSite[] {
  const sites: BareErrorSite[] = [];
  for (const m of text.matchAll(BARE_THROW)) {
    sites.push({ file, line: text.slice(0, m.index).split('\n').length });
  }
  return sites;
}
