// `npm run --silent release:plan-from-history -- <major|minor|patch> [since-tag]`: writes one
// version plan per public package that changed, listing its commits (RELEASING.md).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readWorkspace } from '@fastpath/repo-checks';
import { commitSubjects, versionPlan } from './plan-from-history.js';

const [bump, since] = process.argv.slice(2);
if (bump !== 'major' && bump !== 'minor' && bump !== 'patch') {
  process.stderr.write('usage: plan-from-history-main.ts <major|minor|patch> [since-tag]\n');
  process.exit(2);
}
const root = process.cwd();
const plans = join(root, '.nx', 'version-plans');
mkdirSync(plans, { recursive: true });
for (const pkg of readWorkspace(root)) {
  const manifest = JSON.parse(readFileSync(join(root, pkg.dir, 'package.json'), 'utf8')) as {
    private?: boolean;
    nx?: { name?: string };
  };
  if (manifest.private === true || !pkg.product) continue;
  const project = manifest.nx?.name ?? pkg.name;
  const subjects = commitSubjects(
    root,
    pkg.dir,
    since === undefined ? undefined : since.replace('{project}', project),
  );
  if (subjects.length === 0) continue;
  const file = join(plans, `${project}-from-history.md`);
  if (existsSync(file)) throw new Error(`${file} exists: remove it or release it first`);
  writeFileSync(file, versionPlan({ project, dir: pkg.dir }, bump, subjects));
  process.stdout.write(`${project}: ${bump}, ${subjects.length} commits\n`);
}
