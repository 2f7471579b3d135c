import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A workspace package as the checks see it. */
export interface WorkspacePackage {
  name: string;
  /** Folder relative to the repository root, e.g. `packages/core`. */
  dir: string;
  /** Subpaths its `exports` opens (`.`, `./zookeeper`, …). */
  exportedSubpaths: string[];
  /** Product packages live under packages/; tools and benchmarks are not shipped. */
  product: boolean;
}

/** Reads the workspace folders the root package.json names (`packages/*`, `tools/*`, `benchmarks`). */
export function readWorkspace(root: string): WorkspacePackage[] {
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    workspaces?: string[];
  };
  if (!Array.isArray(rootManifest.workspaces)) throw new Error(`${root}/package.json declares no workspaces`);
  const dirs: string[] = [];
  for (const pattern of rootManifest.workspaces) {
    if (pattern.endsWith('/*')) {
      const parent = pattern.slice(0, -2);
      if (!existsSync(join(root, parent))) continue;
      for (const name of readdirSync(join(root, parent)).sort()) {
        if (existsSync(join(root, parent, name, 'package.json'))) dirs.push(`${parent}/${name}`);
      }
    } else if (existsSync(join(root, pattern, 'package.json'))) {
      dirs.push(pattern);
    }
  }
  return dirs.map((dir) => {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as {
      name: string;
      exports?: Record<string, unknown>;
    };
    const exportedSubpaths = Object.entries(manifest.exports ?? { '.': {} })
      .filter(([, target]) => target !== null)
      .map(([subpath]) => subpath);
    return { name: manifest.name, dir, exportedSubpaths, product: dir.startsWith('packages/') };
  });
}

/** The nearest folder at or above `start` whose package.json declares workspaces: the repository root. */
export function findWorkspaceRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && 'workspaces' in (JSON.parse(readFileSync(manifest, 'utf8')) as object))
      return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json with workspaces above ${start}`);
  }
}
