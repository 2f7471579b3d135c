// `npm run --silent publish:dry-run`: npm's dry run of publishing every public package's tarball,
// after `nx run-many -t build`, with the internal ranges checked. Exits 1 on any problem.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWorkspace } from '@fastpath/repo-checks';
import { publishDryRun } from './publish-dry-run.js';

const root = process.cwd();
const publics = readWorkspace(root)
  .map((p) => ({
    dir: join(root, p.dir),
    manifest: JSON.parse(readFileSync(join(root, p.dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      private?: boolean;
      dependencies?: Record<string, string>;
    },
  }))
  .filter((p) => p.manifest.private !== true);
const versions = new Map(publics.map((p) => [p.manifest.name, p.manifest.version]));
// Dependencies first: the order a publish must follow, so that no package reaches the registry
// before a sibling it asks for.
const ordered: typeof publics = [];
const visit = (p: (typeof publics)[number]): void => {
  if (ordered.includes(p)) return;
  for (const dep of Object.keys(p.manifest.dependencies ?? {})) {
    const sibling = publics.find((q) => q.manifest.name === dep);
    if (sibling !== undefined) visit(sibling);
  }
  ordered.push(p);
};
publics.forEach(visit);
const destination = mkdtempSync(join(tmpdir(), 'fastpath-publish-dry-run-'));
let problems = 0;
try {
  // The dry runs are independent (each packs into its own file); npm spends most of each one
  // starting up and asking the registry, so they run together and report in publishing order.
  const results = await Promise.all(ordered.map((p) => publishDryRun(p.dir, destination, versions)));
  for (const result of results) {
    for (const problem of result.problems) process.stdout.write(`publish-dry-run: ${problem}\n`);
    problems += result.problems.length;
    if (result.problems.length === 0)
      process.stdout.write(`publish-dry-run: ${result.name}@${result.version} ok\n`);
  }
} finally {
  rmSync(destination, { recursive: true, force: true });
}
process.stdout.write(`publish-dry-run: ${publics.length} packages, ${problems} problem(s)\n`);
process.exitCode = problems === 0 ? 0 : 1;
