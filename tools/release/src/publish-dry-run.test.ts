import { internalRangeProblems } from './publish-dry-run.js';

describe('internalRangeProblems', () => {
  const versions = new Map([
    ['@fastpath/core', '0.2.0'],
    ['@fastpath/hadoop-common', '0.2.0'],
  ]);

  it('accepts caret ranges of the siblings and ignores third-party dependencies', () => {
    expect(
      internalRangeProblems(
        {
          name: '@fastpath/kms-client',
          version: '0.2.0',
          dependencies: { '@fastpath/core': '^0.2.0', undici: '7.30.1' },
        },
        versions,
      ),
    ).toEqual([]);
  });

  it('reports an exact pin and a range the sibling no longer satisfies', () => {
    expect(
      internalRangeProblems(
        {
          name: '@fastpath/kms-client',
          version: '0.2.0',
          dependencies: { '@fastpath/core': '0.2.0' },
          optionalDependencies: { '@fastpath/hadoop-common': '^0.1.0' },
        },
        versions,
      ),
    ).toEqual([
      '@fastpath/kms-client: dependencies.@fastpath/core is "0.2.0", not a caret range of @fastpath/core\'s version 0.2.0',
      '@fastpath/kms-client: optionalDependencies.@fastpath/hadoop-common is "^0.1.0", not a caret range of @fastpath/hadoop-common\'s version 0.2.0',
    ]);
  });
});
