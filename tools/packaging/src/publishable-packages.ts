import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A workspace package that is published (not `private`). */
export interface PublishablePackage {
  /** `@fastpath/core`. */
  readonly name: string;
  /** Absolute directory. */
  readonly dir: string;
  readonly version: string;
  /** Whether the package offers a CommonJS entry (a `require` condition on its root export). */
  readonly claimsCommonJs: boolean;
}

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  exports?: Record<string, unknown>;
}

/**
 * The publishable packages under `packages/`, in dependency order (a package after the fastpath
 * packages it depends on), so that each can be built and packed in turn.
 */
export function publishablePackages(root: string): PublishablePackage[] {
  const found = new Map<string, { pkg: PublishablePackage; deps: string[] }>();
  for (const entry of readdirSync(join(root, 'packages'), { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(root, 'packages', entry.name);
    let manifest: Manifest & { dependencies?: Record<string, string> };
    try {
      manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof manifest;
    } catch {
      continue;
    }
    if (manifest.private === true) continue;
    const rootExport = manifest.exports?.['.'];
    const claimsCommonJs = typeof rootExport === 'object' && rootExport !== null && 'require' in rootExport;
    found.set(manifest.name, {
      pkg: { name: manifest.name, dir, version: manifest.version, claimsCommonJs },
      deps: Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith('@fastpath/')),
    });
  }
  const ordered: PublishablePackage[] = [];
  const visit = (name: string, path: string[]): void => {
    const node = found.get(name);
    if (node === undefined || ordered.includes(node.pkg)) return;
    if (path.includes(name)) throw new Error(`dependency cycle: ${[...path, name].join(' -> ')}`);
    for (const dep of node.deps) visit(dep, [...path, name]);
    ordered.push(node.pkg);
  };
  for (const name of [...found.keys()].sort()) visit(name, []);
  return ordered;
}
