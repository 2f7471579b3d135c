import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** One import, re-export, dynamic import or require found in a source file. */
export interface ImportRef {
  /** Path of the importing file, relative to the repository root, with `/` separators. */
  file: string;
  specifier: string;
  /** `import type` / `export type`: erased at run time, so it cannot make a run-time cycle. */
  typeOnly: boolean;
}

// Regular expressions are enough here: the code base is formatted by Prettier, and the check
// must stay fast and free of a TypeScript program build.
const STATIC = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC = /\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Lists the imports of one TypeScript or JavaScript source text. */
export function scanImports(file: string, text: string): ImportRef[] {
  const refs: ImportRef[] = [];
  for (const m of text.matchAll(STATIC)) {
    refs.push({ file, specifier: m[3] as string, typeOnly: m[2] !== undefined });
  }
  for (const m of text.matchAll(DYNAMIC)) refs.push({ file, specifier: m[1] as string, typeOnly: false });
  return refs;
}

const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'results', 'coverage', '.nx']);

/** Every source file below `dir`, as paths relative to `root`. */
export function listSourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      if (SKIP_DIRS.has(name) || name.startsWith('.')) continue;
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (SOURCE.test(name) && !name.endsWith('.d.ts'))
        out.push(relative(root, full).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

export function readImports(root: string, files: readonly string[]): ImportRef[] {
  return files.flatMap((f) => scanImports(f, readFileSync(join(root, f), 'utf8')));
}
