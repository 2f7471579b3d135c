import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The version actions are CommonJS so that Nx loads them without a TypeScript loader.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { alignPrivateDependents } = require('../version-actions.cjs') as {
  alignPrivateDependents: (root: string, dirs: string[]) => string[];
};

describe('alignPrivateDependents', () => {
  let root: string;
  const write = (dir: string, manifest: object): void => {
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  };
  const read = (dir: string): unknown => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'align-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('moves a private workspace to the released version of a public one, keeping its style', () => {
    write('packages/core', { name: '@fastpath/core', version: '0.2.0' });
    write('packages/kms', {
      name: '@fastpath/kms',
      version: '0.2.0',
      dependencies: { '@fastpath/core': '^0.2.0' },
    });
    write('tools/a', {
      name: '@fastpath/a',
      private: true,
      dependencies: { '@fastpath/core': '0.1.0', undici: '7.30.1' },
      devDependencies: { '@fastpath/kms': '^0.1.0', '@fastpath/b': '0.1.0' },
    });
    write('tools/b', {
      name: '@fastpath/b',
      version: '0.1.0',
      private: true,
      dependencies: { '@fastpath/core': '*' },
    });
    expect(alignPrivateDependents(root, ['packages/core', 'packages/kms', 'tools/a', 'tools/b'])).toEqual([
      'tools/a/package.json',
    ]);
    expect(read('tools/a')).toEqual({
      name: '@fastpath/a',
      private: true,
      dependencies: { '@fastpath/core': '0.2.0', undici: '7.30.1' },
      devDependencies: { '@fastpath/kms': '^0.2.0', '@fastpath/b': '0.1.0' },
    });
    expect(read('packages/kms')).toEqual({
      name: '@fastpath/kms',
      version: '0.2.0',
      dependencies: { '@fastpath/core': '^0.2.0' },
    });
  });
});
