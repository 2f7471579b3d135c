// `npm run check -w @fastpath/repo-checks [root]`: prints every boundary violation, catalogue gap,
// bare error and dependency declaration problem.
import { resolve } from 'node:path';
import { checkRepository } from './check-repository.js';
import { findWorkspaceRoot } from './workspace.js';

const root = process.argv[2] ? resolve(process.argv[2]) : findWorkspaceRoot(process.cwd());
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
