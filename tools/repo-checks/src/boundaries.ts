import { dirname, posix } from 'node:path';
import type { ImportRef } from './import-scanner.js';
import type { WorkspacePackage } from './workspace.js';

/**
 * The package edges the design allows (docs/architecture.md): everything may use core; the
 * packages that speak Hadoop's formats use hadoop-common; token-manager and kms-server use
 * secure-random; token-manager reaches ZooKeeper through zookeeper-client (the one home of the
 * node-zookeeper-client workarounds, which the ZooKeeper fixture uses too); kms-server uses
 * token-manager, zookeeper-client for the cookie signer secrets a fleet shares, and hadoop-rpc for
 * its Kerberos (GSSAPI) SASL mechanism, which both of its ZooKeeper clients authenticate with when
 * Hadoop's `sasl` auth type is set (one GSS-API implementation in the repository). ratis-client
 * (Apache Ratis's client protocol, nothing Ozone-specific) uses core and grpc-http2 (its streams'
 * socket session); ozone-fs-client may use it for writes to RATIS pipelines, and kms-client to decrypt the
 * data keys of encrypted buckets. hadoop-rpc (Hadoop's IPC protocol, nothing Ozone-specific) uses
 * core and hadoop-common; ozone-fs-client may use it to reach the Ozone Manager over Hadoop RPC.
 * grpc-http2 (gRPC calls on an HTTP/2 client of fastpath's own, nothing Ozone-specific) uses only
 * core; ozone-fs-client may use it for its datanode and OM sessions, ratis-client for its streams.
 * Tests, tools and benchmarks may import any package, through its front door.
 */
export const ALLOWED_PRODUCT_EDGES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  '@fastpath/core': [],
  '@fastpath/hadoop-common': ['@fastpath/core'],
  '@fastpath/secure-random': ['@fastpath/core'],
  '@fastpath/zookeeper-client': ['@fastpath/core'],
  '@fastpath/token-manager': [
    '@fastpath/core',
    '@fastpath/hadoop-common',
    '@fastpath/secure-random',
    '@fastpath/zookeeper-client',
  ],
  '@fastpath/kms-server': [
    '@fastpath/core',
    '@fastpath/hadoop-common',
    '@fastpath/hadoop-rpc',
    '@fastpath/secure-random',
    '@fastpath/token-manager',
    '@fastpath/zookeeper-client',
  ],
  '@fastpath/kms-client': ['@fastpath/core', '@fastpath/hadoop-common'],
  '@fastpath/ozone-fs-client': [
    '@fastpath/core',
    '@fastpath/hadoop-common',
    '@fastpath/client-warmup',
    '@fastpath/ratis-client',
    '@fastpath/kms-client',
    '@fastpath/hadoop-rpc',
    '@fastpath/grpc-http2',
  ],
  '@fastpath/client-warmup': ['@fastpath/core'],
  '@fastpath/ratis-client': ['@fastpath/core', '@fastpath/grpc-http2'],
  '@fastpath/hadoop-rpc': ['@fastpath/core', '@fastpath/hadoop-common'],
  '@fastpath/grpc-http2': ['@fastpath/core'],
});

export interface Violation {
  rule: 'unknown-package' | 'edge' | 'deep-import' | 'package-cycle' | 'file-cycle';
  message: string;
}

const isTestFile = (file: string): boolean => /(^|\/)test\//.test(file) || /\.test\.[cm]?[jt]s$/.test(file);

/** Finds every import that breaks the design's boundaries, and every cycle. */
export function checkBoundaries(
  packages: readonly WorkspacePackage[],
  imports: readonly ImportRef[],
): Violation[] {
  const violations: Violation[] = [];
  const byName = new Map(packages.map((p) => [p.name, p]));
  const owner = (file: string): WorkspacePackage | undefined =>
    packages.find((p) => file === p.dir || file.startsWith(`${p.dir}/`));

  for (const p of packages) {
    if (p.product && !(p.name in ALLOWED_PRODUCT_EDGES)) {
      violations.push({
        rule: 'unknown-package',
        message: `${p.name} (${p.dir}) is not in the design's package table: add it to docs/architecture.md and ALLOWED_PRODUCT_EDGES`,
      });
    }
  }

  const packageEdges = new Map<string, Set<string>>();
  for (const ref of imports) {
    const from = owner(ref.file);
    if (!from) continue;
    const target = resolveWorkspaceTarget(ref, byName, owner);
    if (target === undefined) continue;
    if ('escapes' in target) {
      violations.push({
        rule: 'deep-import',
        message: `${ref.file}: "${ref.specifier}" reaches into ${target.escapes.dir}; import it as ${target.escapes.name}`,
      });
      continue;
    }
    const { pkg, subpath } = target;
    if (pkg === from) continue;
    if (!pkg.exportedSubpaths.includes(subpath)) {
      violations.push({
        rule: 'deep-import',
        message: `${ref.file}: "${ref.specifier}" is not an export of ${pkg.name} (exports: ${pkg.exportedSubpaths.join(', ')})`,
      });
    }
    if (from.product && !isTestFile(ref.file)) {
      const allowed = ALLOWED_PRODUCT_EDGES[from.name] ?? [];
      if (!allowed.includes(pkg.name)) {
        violations.push({
          rule: 'edge',
          message: `${ref.file}: ${from.name} may not import ${pkg.name} (allowed: ${allowed.join(', ') || 'none'})`,
        });
      }
      if (!ref.typeOnly) {
        const set = packageEdges.get(from.name) ?? new Set<string>();
        set.add(pkg.name);
        packageEdges.set(from.name, set);
      }
    }
  }

  for (const cycle of findCycles(packageEdges)) {
    violations.push({ rule: 'package-cycle', message: `package import cycle: ${cycle.join(' -> ')}` });
  }

  const fileEdges = new Map<string, Set<string>>();
  for (const ref of imports) {
    if (ref.typeOnly || !ref.specifier.startsWith('.')) continue;
    const target = resolveRelative(ref.file, ref.specifier);
    const set = fileEdges.get(ref.file) ?? new Set<string>();
    set.add(target);
    fileEdges.set(ref.file, set);
  }
  for (const cycle of findCycles(fileEdges)) {
    violations.push({ rule: 'file-cycle', message: `module import cycle: ${cycle.join(' -> ')}` });
  }
  return violations;
}

type Target = { pkg: WorkspacePackage; subpath: string } | { escapes: WorkspacePackage };

function resolveWorkspaceTarget(
  ref: ImportRef,
  byName: Map<string, WorkspacePackage>,
  owner: (file: string) => WorkspacePackage | undefined,
): Target | undefined {
  const { specifier } = ref;
  if (specifier.startsWith('.')) {
    const from = owner(ref.file);
    const resolved = resolveRelative(ref.file, specifier);
    const to = owner(resolved);
    if (to && from && to !== from) return { escapes: to };
    return undefined;
  }
  const m = /^(@fastpath\/[^/]+)(\/.*)?$/.exec(specifier);
  if (!m) return undefined;
  const pkg = byName.get(m[1] as string);
  if (!pkg) return undefined;
  return { pkg, subpath: m[2] ? `.${m[2]}` : '.' };
}

/** `a/b/c.ts` importing `./d.js` → `a/b/d.ts` (the file the NodeNext-style specifier means). */
function resolveRelative(file: string, specifier: string): string {
  const joined = posix.normalize(posix.join(dirname(file), specifier));
  return joined.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts');
}

/** Elementary cycles found by depth-first search, each reported once (rotated to its smallest node). */
export function findCycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const cycles = new Map<string, string[]>();
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'active');
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      const s = state.get(next);
      if (s === 'active') {
        const cycle = stack.slice(stack.indexOf(next));
        const start = cycle.indexOf([...cycle].sort()[0] as string);
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.set(rotated.join('\0'), [...rotated, rotated[0] as string]);
      } else if (s === undefined) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...edges.keys()].sort()) if (!state.has(node)) visit(node);
  return [...cycles.values()];
}
