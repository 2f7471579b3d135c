// `npm run check -w @fastpath/repo-checks [root]`: prints every boundary violation, catalogue gap,
// bare error and dependency declaration problem.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { checkRepository } from './check-repository.js';

/** The nearest folder upward whose package.json declares workspaces: the repository root. */
function findRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && 'workspaces' in (JSON.parse(readFileSync(manifest, 'utf8')) as object))
      return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json with workspaces above ${start}`);
  }
}

const root = process.argv[2] ? resolve(process.argv[2]) : findRoot(process.cwd());
const report = checkRepository(root);
for (const v of report.violations) console.log(`${v.rule}: ${v.message}`);
for (const m of report.catalogue.missing)
  console.log(`error-catalogue: ${m.code} (${m.files.join(', ')}) is not in docs/errors.md`);
for (const s of report.catalogue.stale)
  console.log(`error-catalogue: ${s} is in docs/errors.md but no code throws it`);
for (const h of report.httpColumns) console.log(`error-catalogue: ${h}`);
for (const b of report.bareErrors)
  console.log(
    `error-style: ${b.file}:${b.line} constructs FastpathError itself; throw a subclass of its code family`,
  );
for (const r of report.retriableColumn) console.log(`error-catalogue: ${r}`);
for (const d of report.dependencies) console.log(`dependencies (${d.rule}): ${d.message}`);
const problems =
  report.violations.length +
  report.catalogue.missing.length +
  report.catalogue.stale.length +
  report.httpColumns.length +
  report.bareErrors.length +
  report.retriableColumn.length +
  report.dependencies.length;
console.log(`${report.filesScanned} files scanned, ${problems} problem(s)`);
process.exitCode = problems === 0 ? 0 : 1;
