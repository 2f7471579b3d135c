import { bareFastpathErrorsIn } from './error-style.js';

describe('bareFastpathErrorsIn', () => {
  it('finds constructions of the base class itself, with their line, and not of subclasses', () => {
    const text = [
      "import { FastpathError } from '@fastpath/core';",
      'class KmsError extends FastpathError {}',
      "throw new KmsError('ERR_KMS_X', 'subclass: fine');",
      "throw new FastpathError('ERR_X', 'bare');",
      "const e = new  FastpathError ('ERR_Y', 'bare too');",
      "throw new MyFastpathError('ERR_Z', 'another class');",
    ].join('\n');
    expect(bareFastpathErrorsIn('packages/x/src/a.ts', text)).toEqual([
      { file: 'packages/x/src/a.ts', line: 4 },
      { file: 'packages/x/src/a.ts', line: 5 },
    ]);
  });
});
