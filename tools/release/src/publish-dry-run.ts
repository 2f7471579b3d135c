import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isCaretRangeFor } from './caret-range.js';

const run = promisify(execFile);

/** A public package's manifest fields the check reads. */
export interface PackedManifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/**
 * What is wrong with the fastpath dependencies of a packed package.json: each must be a caret
 * range that the sibling's current version satisfies (`versions`: name → version).
 */
export function internalRangeProblems(
  manifest: PackedManifest,
  versions: ReadonlyMap<string, string>,
): string[] {
  const problems: string[] = [];
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
    for (const [name, spec] of Object.entries(manifest[field] ?? {})) {
      const version = versions.get(name);
      if (version === undefined) continue;
      if (!isCaretRangeFor(spec, version)) {
        problems.push(
          `${manifest.name}: ${field}.${name} is "${spec}", not a caret range of ${name}'s version ${version}`,
        );
      }
    }
  }
  return problems;
}

/** The outcome for one package: its tarball and what npm or the range check said. */
export interface DryRunResult {
  name: string;
  version: string;
  tarball: string;
  problems: string[];
}

/**
 * Packs `dir` (which must be built) into `destination`, checks the packed package.json's internal
 * ranges, and asks npm for a dry run of publishing that tarball with public access, which is what
 * RELEASING.md publishes. Nothing reaches the registry.
 */
export async function publishDryRun(
  dir: string,
  destination: string,
  versions: ReadonlyMap<string, string>,
): Promise<DryRunResult> {
  const own = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackedManifest;
  const result: DryRunResult = { name: own.name, version: own.version, tarball: '', problems: [] };
  if (!existsSync(join(dir, 'dist'))) {
    result.problems.push(`${own.name}: no dist/ (build first: npx nx run-many -t build)`);
    return result;
  }
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], { cwd: dir });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  result.tarball = join(destination, packed?.filename ?? '');
  const { stdout: manifestText } = await run('tar', ['-xzOf', result.tarball, 'package/package.json']);
  result.problems.push(...internalRangeProblems(JSON.parse(manifestText) as PackedManifest, versions));
  try {
    await run('npm', ['publish', result.tarball, '--dry-run', '--access', 'public', '--loglevel=error'], {
      cwd: destination,
    });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    result.problems.push(`${own.name}: npm publish --dry-run failed: ${e.stderr ?? e.message}`);
  }
  return result;
}
