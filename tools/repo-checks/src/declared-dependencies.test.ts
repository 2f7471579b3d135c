import { checkDeclaredDependencies, packageOfSpecifier, type Manifest } from './declared-dependencies.js';
import { scanImports } from './import-scanner.js';
import type { WorkspacePackage } from './workspace.js';

const pkg = (name: string, dir: string): WorkspacePackage => ({
  name,
  dir,
  exportedSubpaths: ['.'],
  product: dir.startsWith('packages/'),
});

const packages = [
  pkg('@fastpath/core', 'packages/core'),
  pkg('@fastpath/kms-client', 'packages/kms-client'),
  pkg('@fastpath/kms-server', 'packages/kms-server'),
  pkg('@fastpath/hadoop-common', 'packages/hadoop-common'),
  pkg('@fastpath/benchmarks', 'benchmarks'),
  pkg('@fastpath/packaging', 'tools/packaging'),
];

// Written through a function so that the repository's own scan of this file finds no import of it.
const dynamicImport = (name: string): string => `await import('${name}');`;

function check(
  manifests: Record<string, Manifest>,
  files: Record<string, string>,
  bins: Record<string, string[]> = {},
): string[] {
  const texts = new Map(Object.entries(files));
  const imports = [...texts].flatMap(([file, text]) => scanImports(file, text));
  return checkDeclaredDependencies(packages, imports, {
    manifests: new Map(Object.entries(manifests)),
    rootDevDependencies: new Set(['jest', 'fast-check', 'tsx']),
    binsOf: (dep) => bins[dep] ?? [],
    texts,
  }).map((p) => `${p.rule} ${p.packageName}: ${p.message}`);
}

describe('packageOfSpecifier', () => {
  it('names the package of bare specifiers and nothing for relative, absolute or built-in ones', () => {
    expect(packageOfSpecifier('@fastpath/token-manager/zookeeper')).toBe('@fastpath/token-manager');
    expect(packageOfSpecifier('undici')).toBe('undici');
    expect(packageOfSpecifier('protobufjs/minimal.js')).toBe('protobufjs');
    expect(packageOfSpecifier('./a.js')).toBeUndefined();
    expect(packageOfSpecifier('/abs/a.js')).toBeUndefined();
    expect(packageOfSpecifier('node:fs')).toBeUndefined();
    expect(packageOfSpecifier('fs/promises')).toBeUndefined();
    expect(packageOfSpecifier('${name}')).toBeUndefined();
  });
});

describe('checkDeclaredDependencies', () => {
  it("finds the benchmarks' undeclared import of kms-client, the edge Nx could not order builds by", () => {
    const problems = check(
      { '@fastpath/benchmarks': { dependencies: { '@fastpath/core': '0.1.0' } } },
      {
        'benchmarks/src/kms-preflight.ts':
          "import { KmsClient } from '@fastpath/kms-client';\nimport { Mutex } from '@fastpath/core';",
      },
    );
    expect(problems).toEqual([
      'undeclared @fastpath/benchmarks: benchmarks/src/kms-preflight.ts imports @fastpath/kms-client, which benchmarks/package.json does not declare: add it to dependencies',
    ]);
  });

  it('accepts runtime imports declared as dependencies, peers or optional dependencies', () => {
    expect(
      check(
        {
          '@fastpath/kms-client': {
            dependencies: { '@fastpath/core': '0.1.0' },
            peerDependencies: { undici: '>=7' },
            optionalDependencies: { kerberos: '7.0.0' },
          },
        },
        {
          'packages/kms-client/src/a.ts':
            "import { Mutex } from '@fastpath/core';\nimport { request } from 'undici';",
          'packages/kms-client/bin/key.js': `${dynamicImport('kerberos')}\nimport { readFile } from 'node:fs/promises';`,
        },
      ),
    ).toEqual([]);
  });

  it('reports shipped code importing what is declared only for development', () => {
    expect(
      check(
        { '@fastpath/kms-client': { devDependencies: { undici: '7.30.1' } } },
        { 'packages/kms-client/src/client.ts': "import { request } from 'undici';" },
      ),
    ).toEqual([
      'dev-only @fastpath/kms-client: packages/kms-client/src/client.ts imports undici, which @fastpath/kms-client declares only in devDependencies: move it to dependencies',
    ]);
  });

  it("lets tests use the root's toolchain, but never a workspace package the importer does not declare", () => {
    expect(
      check(
        { '@fastpath/kms-client': {} },
        {
          'packages/kms-client/src/a.test.ts': "import fc from 'fast-check';",
          'packages/kms-client/test/b.integration.test.ts':
            "import { startKms } from '@fastpath/kms-server';",
          'packages/kms-client/jest.config.cjs':
            "module.exports = require('../../jest.preset.cjs')(__dirname);",
        },
      ),
    ).toEqual([
      'undeclared @fastpath/kms-client: packages/kms-client/test/b.integration.test.ts imports @fastpath/kms-server, which packages/kms-client/package.json does not declare: add it to devDependencies',
    ]);
  });

  it('reports a declaration nothing imports, in any field', () => {
    expect(
      check(
        {
          '@fastpath/core': {
            dependencies: { 'async-mutex': '0.5.0', 'left-pad': '1.0.0' },
            devDependencies: { '@fastpath/kms-server': '0.1.0' },
          },
        },
        { 'packages/core/src/mutex.ts': "import { Mutex } from 'async-mutex';" },
      ),
    ).toEqual([
      'unused @fastpath/core: packages/core/package.json declares left-pad in dependencies, but nothing in packages/core imports it or runs its command: remove it',
      'unused @fastpath/core: packages/core/package.json declares @fastpath/kms-server in devDependencies, but nothing in packages/core imports it or runs its command: remove it',
    ]);
  });

  it('counts as used: types of an imported package, a command run by a script or named in the sources, a resolved file', () => {
    expect(
      check(
        {
          '@fastpath/core': {
            dependencies: { 'node-zookeeper-client': '1.1.3', '@types/node-zookeeper-client': '1.1.0' },
            devDependencies: { 'protobufjs-cli': '1.3.3', '@fastpath/kms-server': '0.1.0' },
            scripts: { generate: 'pbjs -t static-module' },
          },
          '@fastpath/packaging': { devDependencies: { publint: '0.3.25', tsx: '4.23.15' } },
        },
        {
          'packages/core/src/zk.ts': "import zookeeper from 'node-zookeeper-client';",
          'packages/core/test/a.test.ts': "const dir = require.resolve('@fastpath/kms-server/package.json');",
          'tools/packaging/test/pack.test.ts':
            "await run(join(BIN, 'publint'), ['run']);\nconst tsx = import.meta.resolve('tsx');",
        },
        { 'protobufjs-cli': ['pbjs', 'pbts'], publint: ['publint'], tsx: ['tsx'] },
      ),
    ).toEqual([]);
  });

  it('does not take a path.resolve() argument or a command named only in passing for a use', () => {
    expect(
      check(
        { '@fastpath/packaging': { devDependencies: { publint: '0.3.25', results: '1.0.0' } } },
        { 'tools/packaging/test/pack.test.ts': "const dir = path.resolve('results');\n// publint checks it" },
        { publint: ['publint'] },
      ),
    ).toHaveLength(2);
  });

  it('knows the optional kerberos package that hadoop-common loads by a name it passes around', () => {
    expect(
      check(
        { '@fastpath/hadoop-common': { optionalDependencies: { kerberos: '7.0.0' } } },
        { 'packages/hadoop-common/src/load-kerberos.ts': "loaded ??= importKerberos('kerberos');" },
      ),
    ).toEqual([]);
  });

  it('checks a package it has never heard of the same way', () => {
    const problems = checkDeclaredDependencies(
      [...packages, pkg('@fastpath/hadoop-rpc', 'packages/hadoop-rpc')],
      scanImports('packages/hadoop-rpc/src/client.ts', "import { Token } from '@fastpath/hadoop-common';"),
      {
        manifests: new Map([['@fastpath/hadoop-rpc', {}]]),
        rootDevDependencies: new Set(),
        binsOf: () => [],
        texts: new Map(),
      },
    );
    expect(problems.map((p) => p.rule)).toEqual(['undeclared']);
  });

  it('reports a cycle of declared workspace dependencies unless one edge is cut for Nx', () => {
    const manifests = (cut: boolean): Record<string, Manifest> => ({
      '@fastpath/kms-client': {
        dependencies: { '@fastpath/core': '0.1.0' },
        devDependencies: { '@fastpath/benchmarks': '0.1.0' },
        nx: { name: 'kms-client' },
      },
      '@fastpath/benchmarks': {
        devDependencies: { '@fastpath/kms-client': '0.1.0' },
        nx: { name: 'benchmarks', ...(cut ? { implicitDependencies: ['!kms-client'] } : {}) },
      },
    });
    const files = {
      'packages/kms-client/test/a.test.ts': "import '@fastpath/benchmarks';\nimport '@fastpath/core';",
      'benchmarks/test/a.test.ts': "import '@fastpath/kms-client';",
    };
    expect(check(manifests(false), files).filter((p) => p.startsWith('build-cycle'))).toEqual([
      'build-cycle benchmarks: the declared dependencies form a cycle, which Nx cannot order builds in: benchmarks -> kms-client -> benchmarks; cut the test-only edge with "implicitDependencies": ["!<project>"] in that package\'s nx field',
    ]);
    expect(check(manifests(true), files)).toEqual([]);
  });
});
