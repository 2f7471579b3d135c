import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitSubjects, versionPlan } from './plan-from-history.js';

describe('commitSubjects', () => {
  let repo: string;
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
      cwd: repo,
      encoding: 'utf8',
    });
  const commit = (file: string, message: string): void => {
    mkdirSync(join(repo, file, '..'), { recursive: true });
    writeFileSync(join(repo, file), message);
    git('add', '.');
    git('commit', '-q', '-m', message);
  };
  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), 'plan-history-'));
    git('init', '-q');
    commit('packages/core/a.ts', 'core: a lock');
    commit('packages/kms/a.ts', 'kms: a server');
    git('tag', '@fastpath/core@0.1.0');
    commit('packages/core/b.ts', 'core: a mutex');
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it("lists the commits that changed the package's folder, oldest first, since a tag when given", () => {
    expect(commitSubjects(repo, 'packages/core')).toEqual(['core: a lock', 'core: a mutex']);
    expect(commitSubjects(repo, 'packages/core', '@fastpath/core@0.1.0')).toEqual(['core: a mutex']);
    expect(commitSubjects(repo, 'packages/kms', '@fastpath/core@0.1.0')).toEqual([]);
  });
});

describe('versionPlan', () => {
  it('bumps the project in the front matter and lists the changes in the body', () => {
    expect(
      versionPlan({ project: 'core', dir: 'packages/core' }, 'minor', ['core: a lock', 'core:  two\tspaces']),
    ).toBe(
      '---\ncore: minor\n---\n\nChanges from the history of packages/core:\n\n- core: a lock\n- core: two spaces\n',
    );
  });
});
