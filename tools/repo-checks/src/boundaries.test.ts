import { checkBoundaries, findCycles } from './boundaries.js';
import { scanImports } from './import-scanner.js';
import type { WorkspacePackage } from './workspace.js';

const pkg = (name: string, dir: string, exportedSubpaths = ['.']): WorkspacePackage => ({
  name,
  dir,
  exportedSubpaths,
  product: dir.startsWith('packages/'),
});

const packages = [
  pkg('@fastpath/core', 'packages/core'),
  pkg('@fastpath/hadoop-common', 'packages/hadoop-common'),
  pkg('@fastpath/secure-random', 'packages/secure-random'),
  pkg('@fastpath/token-manager', 'packages/token-manager', ['.', './zookeeper']),
  pkg('@fastpath/kms-client', 'packages/kms-client'),
  pkg('@fastpath/benchmarks', 'benchmarks'),
];

describe('scanImports', () => {
  it('finds static, type-only, re-export, dynamic and require imports', () => {
    const refs = scanImports(
      'packages/x/src/a.ts',
      [
        "import { a } from './a.js';",
        "import type { B } from '@fastpath/core';",
        "export { c } from './c.js';",
        "export * from './d.js';",
        "import './side-effect.js';",
        "const e = await import('./e.js');",
        "const f = require('./f.js');",
      ].join('\n'),
    );
    expect(refs.map((r) => [r.specifier, r.typeOnly])).toEqual([
      ['./a.js', false],
      ['@fastpath/core', true],
      ['./c.js', false],
      ['./d.js', false],
      ['./side-effect.js', false],
      ['./e.js', false],
      ['./f.js', false],
    ]);
  });
});

describe('checkBoundaries', () => {
  const rules = (files: Record<string, string>) =>
    checkBoundaries(
      packages,
      Object.entries(files).flatMap(([file, text]) => scanImports(file, text)),
    ).map((v) => v.rule);

  it('accepts the edges the design allows', () => {
    expect(
      rules({
        'packages/token-manager/src/a.ts':
          "import { Mutex } from '@fastpath/core';\nimport { r } from '@fastpath/secure-random';",
        'packages/token-manager/src/b.ts': "import { a } from './a.js';",
        'packages/kms-client/src/t.ts': "import { Token } from '@fastpath/hadoop-common';",
        'packages/hadoop-common/src/e.ts': "import { FastpathError } from '@fastpath/core';",
        'benchmarks/src/x.ts': "import { z } from '@fastpath/token-manager/zookeeper';",
      }),
    ).toEqual([]);
  });

  it('refuses an edge the design does not allow, but lets tests import anything', () => {
    expect(rules({ 'packages/kms-client/src/a.ts': "import { t } from '@fastpath/token-manager';" })).toEqual(
      ['edge'],
    );
    expect(
      rules({
        'packages/kms-client/test/a.integration.test.ts': "import { t } from '@fastpath/token-manager';",
      }),
    ).toEqual([]);
    // hadoop-common sits beside core: it imports nothing that speaks a service.
    expect(
      rules({ 'packages/hadoop-common/src/a.ts': "import { t } from '@fastpath/token-manager';" }),
    ).toEqual(['edge']);
    expect(rules({ 'packages/core/src/x.test.ts': "import { t } from '@fastpath/secure-random';" })).toEqual(
      [],
    );
  });

  it('refuses deep imports, by subpath and by relative path', () => {
    expect(rules({ 'benchmarks/src/a.ts': "import { x } from '@fastpath/core/src/mutex.js';" })).toEqual([
      'deep-import',
    ]);
    expect(
      rules({ 'packages/token-manager/src/a.ts': "import { x } from '../../core/src/mutex.js';" }),
    ).toEqual(['deep-import']);
  });

  it('finds package and module cycles, ignoring type-only imports', () => {
    const withCycle = [...packages, pkg('@fastpath/ozone-fs-client', 'packages/ozone-fs-client')];
    const refs = [
      ...scanImports('packages/core/src/a.ts', "import { b } from './b.js';"),
      ...scanImports('packages/core/src/b.ts', "import { a } from './a.js';"),
      ...scanImports('packages/core/src/c.ts', "import type { d } from './d.js';"),
      ...scanImports('packages/core/src/d.ts', "import type { c } from './c.js';"),
    ];
    const found = checkBoundaries(withCycle, refs);
    expect(found.map((v) => v.rule)).toEqual(['file-cycle']);
    expect(found[0]?.message).toContain(
      'packages/core/src/a.ts -> packages/core/src/b.ts -> packages/core/src/a.ts',
    );
  });

  it('flags a product package missing from the design table', () => {
    const found = checkBoundaries([...packages, pkg('@fastpath/new-thing', 'packages/new-thing')], []);
    expect(found.map((v) => v.rule)).toEqual(['unknown-package']);
  });
});

describe('findCycles', () => {
  it('reports each cycle once, and none in a DAG', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      findCycles(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set(['c'])],
        ]),
      ),
    ).toEqual([]);
  });
});
