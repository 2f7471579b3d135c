import { execFileSync } from 'node:child_process';

/** One public package as the release sees it. */
export interface ReleasedPackage {
  /** Nx project name, the key of a version plan (`core`). */
  project: string;
  /** Folder relative to the repository root (`packages/core`). */
  dir: string;
}

/**
 * The subjects of the commits that changed `dir` since `since` (a tag; the whole history when
 * undefined), oldest first, merges left out: what a first version plan of a package says
 * happened, since the history is written as `<project>: what changed and why` rather than in
 * conventional commits Nx could bump from.
 */
export function commitSubjects(root: string, dir: string, since?: string): string[] {
  const range = since === undefined ? [] : [`${since}..HEAD`];
  const out = execFileSync('git', ['log', '--no-merges', '--reverse', '--format=%s', ...range, '--', dir], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return out.split('\n').filter((line) => line.trim() !== '');
}

/**
 * A version plan (`.nx/version-plans/*.md`) bumping `pkg` by `bump`, its body the changes listed
 * from the history. Nx release turns the body into the package's CHANGELOG.md entry.
 *
 * @example
 * ```ts
 * versionPlan({ project: 'core', dir: 'packages/core' }, 'minor', ['core: a fair read-write lock']);
 * // '---\ncore: minor\n---\n\nChanges from the history of packages/core:\n\n- core: a fair read-write lock\n'
 * ```
 */
export function versionPlan(
  pkg: ReleasedPackage,
  bump: 'major' | 'minor' | 'patch',
  subjects: readonly string[],
): string {
  const lines = subjects.map((s) => `- ${s.replace(/\s+/g, ' ').trim()}`);
  return `---\n${pkg.project}: ${bump}\n---\n\nChanges from the history of ${pkg.dir}:\n\n${lines.join('\n')}\n`;
}
