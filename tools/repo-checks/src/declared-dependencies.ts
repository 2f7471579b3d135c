import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { findCycles } from './boundaries.js';
import type { ImportRef } from './import-scanner.js';
import type { WorkspacePackage } from './workspace.js';

/** The dependency fields of a package.json that this check reads. */
export interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  nx?: { name?: string; implicitDependencies?: string[] };
}

export interface DependencyProblem {
  rule: 'undeclared' | 'dev-only' | 'unused' | 'build-cycle';
  /** The workspace package whose package.json needs the change. */
  packageName: string;
  message: string;
}

/** The inputs of {@link checkDeclaredDependencies}, read from disk by {@link readDependencyInputs}. */
export interface DependencyInputs {
  manifests: ReadonlyMap<string, Manifest>;
  /** The root package.json's devDependencies: the shared toolchain (jest, TypeScript, fast-check). */
  rootDevDependencies: ReadonlySet<string>;
  /** The command names each dependency installs (`bin`), so a script's use of one counts. */
  binsOf: (dependency: string) => readonly string[];
  /** The text of each scanned source file, by path relative to the repository root. */
  texts: ReadonlyMap<string, string>;
}

/**
 * Dependencies a package loads by a name its code passes around, which no scan of import
 * statements can see, each with the reason.
 */
export const LOADED_BY_NAME: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.freeze({
  '@fastpath/hadoop-common': {
    // load-kerberos.ts hands the specifier to importKerberos(), whose tests load a missing name.
    kerberos: 'the optional GSS-API addon, imported through importKerberos(specifier)',
  },
});

const BUILTINS = new Set(builtinModules);
const RESOLVE = /(?:\brequire|\bimport\.meta|\))\.resolve\(\s*['"]([^'"]+)['"]/g;

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`; undefined for relative, absolute and built-in specifiers. */
export function packageOfSpecifier(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:'))
    return undefined;
  if (/^[a-z]+:/.test(specifier)) return undefined; // data:, file:, …
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
  if (BUILTINS.has(name)) return undefined;
  // Not a package name (a template such as `${name}`): no package to declare.
  if (!/^(@[a-z0-9~][\w.~-]*\/)?[a-z0-9~][\w.~-]*$/.test(name)) return undefined;
  return name;
}

/**
 * Code that runs when a user installs the package: its sources and commands, tests aside. Tests,
 * build scripts and configuration run only in this repository, so devDependencies (or the root's
 * toolchain) may serve them.
 */
export function isRuntimeFile(file: string, pkg: WorkspacePackage): boolean {
  const rel = file.slice(pkg.dir.length + 1);
  if (!/^(src|bin)\//.test(rel)) return false;
  return !/(^|\/)test\//.test(rel) && !/\.test\.[cm]?[jt]s$/.test(rel);
}

/** `@types/foo` types `foo`; `@types/scope__name` types `@scope/name`. */
function typedPackage(typesName: string): string {
  const bare = typesName.slice('@types/'.length);
  return bare.includes('__') ? `@${bare.replace('__', '/')}` : bare;
}

/**
 * Compares each workspace package's imports with the dependencies its package.json declares:
 * - undeclared: a package imported but not declared (a workspace package must be declared by the
 *   importer itself, or Nx does not order its build first; a third-party one imported only by
 *   tests may come from the root's toolchain);
 * - dev-only: imported by code that ships but declared only as a devDependency, so an installed
 *   copy would not find it;
 * - unused: declared but never imported, nor typed through `@types/`, nor run through its
 *   command in one of the package's scripts.
 */
export function checkDeclaredDependencies(
  packages: readonly WorkspacePackage[],
  imports: readonly ImportRef[],
  inputs: DependencyInputs,
): DependencyProblem[] {
  const problems: DependencyProblem[] = [];
  const owner = (file: string): WorkspacePackage | undefined =>
    packages.find((p) => file.startsWith(`${p.dir}/`));
  const used = new Map<string, { runtime: Map<string, string>; development: Map<string, string> }>();
  for (const p of packages) used.set(p.name, { runtime: new Map(), development: new Map() });

  for (const ref of imports) {
    const pkg = owner(ref.file);
    const dep = packageOfSpecifier(ref.specifier);
    if (pkg === undefined || dep === undefined || dep === pkg.name) continue;
    const bucket = used.get(pkg.name)!;
    const where = isRuntimeFile(ref.file, pkg) ? bucket.runtime : bucket.development;
    if (!where.has(dep)) where.set(dep, ref.file);
  }

  for (const p of packages) {
    const manifest = inputs.manifests.get(p.name) ?? {};
    const runtimeDeclared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
    ]);
    const devDeclared = new Set(Object.keys(manifest.devDependencies ?? {}));
    const { runtime, development } = used.get(p.name)!;
    const isWorkspace = (dep: string): boolean => packages.some((q) => q.name === dep);

    for (const [dep, file] of runtime) {
      if (runtimeDeclared.has(dep)) continue;
      if (devDeclared.has(dep)) {
        problems.push({
          rule: 'dev-only',
          packageName: p.name,
          message: `${file} imports ${dep}, which ${p.name} declares only in devDependencies: move it to dependencies`,
        });
      } else {
        problems.push({
          rule: 'undeclared',
          packageName: p.name,
          message: `${file} imports ${dep}, which ${p.dir}/package.json does not declare: add it to dependencies`,
        });
      }
    }
    for (const [dep, file] of development) {
      if (runtimeDeclared.has(dep) || devDeclared.has(dep) || runtime.has(dep)) continue;
      if (!isWorkspace(dep) && inputs.rootDevDependencies.has(dep)) continue;
      problems.push({
        rule: 'undeclared',
        packageName: p.name,
        message: `${file} imports ${dep}, which ${p.dir}/package.json does not declare: add it to devDependencies`,
      });
    }

    // A command counts when a script runs it or the sources name it as a string (`join(BIN, 'attw')`).
    const scripts = Object.values(manifest.scripts ?? {}).join('\n');
    const sources = [...inputs.texts].filter(([file]) => owner(file) === p).map(([, text]) => text);
    const runsCommandOf = (dep: string): boolean =>
      inputs
        .binsOf(dep)
        .some(
          (bin) =>
            new RegExp(`(^|[\\s;&|(])${escape(bin)}($|[\\s;&|)])`, 'm').test(scripts) ||
            sources.some((text) => text.includes(`'${bin}'`) || text.includes(`"${bin}"`)),
        );
    const imported = (dep: string): boolean =>
      runtime.has(dep) ||
      development.has(dep) ||
      resolvedBy(p, sources).has(dep) ||
      LOADED_BY_NAME[p.name]?.[dep] !== undefined;
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies'] as const) {
      for (const dep of Object.keys(manifest[field] ?? {})) {
        if (imported(dep) || runsCommandOf(dep)) continue;
        if (dep.startsWith('@types/') && imported(typedPackage(dep))) continue;
        problems.push({
          rule: 'unused',
          packageName: p.name,
          message: `${p.dir}/package.json declares ${dep} in ${field}, but nothing in ${p.dir} imports it or runs its command: remove it`,
        });
      }
    }
  }
  problems.push(...buildCycles(packages, inputs.manifests));
  return problems;
}

/**
 * Cycles among the declared workspace dependencies, as Nx orders builds (`dependsOn: ^build`
 * follows devDependencies too, and Nx refuses a cyclic task graph). A test-only edge that closes
 * a cycle is cut for Nx with `"implicitDependencies": ["!<project>"]` in the package's `nx` field.
 */
function buildCycles(
  packages: readonly WorkspacePackage[],
  manifests: ReadonlyMap<string, Manifest>,
): DependencyProblem[] {
  const nxName = new Map<string, string>();
  for (const p of packages) nxName.set(p.name, manifests.get(p.name)?.nx?.name ?? p.name);
  const edges = new Map<string, Set<string>>();
  for (const p of packages) {
    const manifest = manifests.get(p.name) ?? {};
    const cut = new Set(
      (manifest.nx?.implicitDependencies ?? []).filter((d) => d.startsWith('!')).map((d) => d.slice(1)),
    );
    const targets = new Set<string>();
    for (const field of [
      'dependencies',
      'devDependencies',
      'optionalDependencies',
      'peerDependencies',
    ] as const) {
      for (const dep of Object.keys(manifest[field] ?? {})) {
        const name = nxName.get(dep);
        if (name !== undefined && !cut.has(name) && dep !== p.name) targets.add(name);
      }
    }
    edges.set(nxName.get(p.name) as string, targets);
  }
  return findCycles(edges).map((cycle) => ({
    rule: 'build-cycle' as const,
    packageName: cycle[0] as string,
    message: `the declared dependencies form a cycle, which Nx cannot order builds in: ${cycle.join(' -> ')}; cut the test-only edge with "implicitDependencies": ["!<project>"] in that package's nx field`,
  }));
}

/**
 * Packages whose files the sources resolve (`require.resolve`, `import.meta.resolve`, or the
 * `resolve` of a `createRequire`): a use of the package, though not necessarily at run time (a
 * command that runs its sources through tsx when it has no build resolves tsx), so it only keeps
 * a declaration from counting as unused.
 */
function resolvedBy(pkg: WorkspacePackage, sources: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const text of sources) {
    for (const m of text.matchAll(RESOLVE)) {
      const name = packageOfSpecifier(m[1] as string);
      if (name !== undefined && name !== pkg.name) names.add(name);
    }
  }
  return names;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Reads every workspace manifest, the root's devDependencies, each installed dependency's commands and the sources. */
export function readDependencyInputs(
  root: string,
  packages: readonly WorkspacePackage[],
  files: readonly string[],
): DependencyInputs {
  const readJson = (file: string): Record<string, unknown> =>
    JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const manifests = new Map<string, Manifest>();
  for (const p of packages) manifests.set(p.name, readJson(join(root, p.dir, 'package.json')));
  const rootManifest = readJson(join(root, 'package.json')) as Manifest;
  const binCache = new Map<string, string[]>();
  const binsOf = (dependency: string): string[] => {
    let bins = binCache.get(dependency);
    if (bins === undefined) {
      // npm hoists workspace dependencies to the root's node_modules; a workspace package is
      // linked there too.
      const file = join(root, 'node_modules', dependency, 'package.json');
      const bin = existsSync(file) ? readJson(file).bin : undefined;
      bins =
        typeof bin === 'string'
          ? [dependency.split('/').pop() as string]
          : bin !== null && typeof bin === 'object'
            ? Object.keys(bin)
            : [];
      binCache.set(dependency, bins);
    }
    return bins;
  };
  return {
    manifests,
    rootDevDependencies: new Set(Object.keys(rootManifest.devDependencies ?? {})),
    binsOf,
    texts: new Map(files.map((f) => [f, readFileSync(join(root, f), 'utf8')])),
  };
}
