import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { requireWithCodeCache } from './require-with-code-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'fastpath-code-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bundle(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
}

describe('requireWithCodeCache', () => {
  it('loads the module, writes the cache, then uses it', () => {
    const file = bundle(
      'a.cjs',
      "const path = require('node:path'); module.exports = { answer: 42, base: path.basename(__filename) };",
    );
    const first = requireWithCodeCache<{ answer: number; base: string }>(file, { writeAt: 'now' });
    expect(first).toEqual({ exports: { answer: 42, base: 'a.cjs' }, cache: 'absent' });
    const second = requireWithCodeCache<{ answer: number }>(file, { writeAt: 'now' });
    expect(second).toEqual({ exports: { answer: 42, base: 'a.cjs' }, cache: 'used' });
  });

  it('ignores a cache of another source and rebuilds it', () => {
    const file = bundle('b.cjs', 'module.exports = 1;');
    requireWithCodeCache(file, { writeAt: 'now' });
    writeFileSync(file, 'module.exports = 2;');
    expect(requireWithCodeCache(file, { writeAt: 'now' })).toEqual({ exports: 2, cache: 'rejected' });
    expect(requireWithCodeCache(file, { writeAt: 'now' })).toEqual({ exports: 2, cache: 'used' });
  });

  it('a corrupt or truncated cache is rejected, never trusted, and rebuilt', () => {
    const file = bundle('c.cjs', 'module.exports = { n: [1, 2, 3].map((x) => x * 2) };');
    const cacheFile = `${file}.v8cache`;
    requireWithCodeCache(file, { writeAt: 'now' });
    const good = readFileSync(cacheFile);
    const headLength = good.indexOf(0x0a, good.indexOf(0x0a) + 1) + 1; // the header and digest lines
    const corrupt = Buffer.from(good);
    for (let i = headLength; i < corrupt.length; i++) corrupt[i] = corrupt[i]! ^ 0x5a;
    writeFileSync(cacheFile, corrupt);
    expect(requireWithCodeCache(file, { writeAt: 'now' })).toEqual({
      exports: { n: [2, 4, 6] },
      cache: 'rejected',
    });
    expect(requireWithCodeCache(file, { writeAt: 'now' }).cache).toBe('used');
    writeFileSync(cacheFile, good.subarray(0, headLength + 8));
    expect(requireWithCodeCache(file, { writeAt: 'now' })).toEqual({
      exports: { n: [2, 4, 6] },
      cache: 'rejected',
    });
    writeFileSync(cacheFile, 'garbage');
    expect(requireWithCodeCache(file, { writeAt: 'now' }).cache).toBe('rejected');
    rmSync(cacheFile);
    expect(requireWithCodeCache(file, { writeAt: 'now' }).cache).toBe('absent');
  });

  it('what the module throws reaches the caller', () => {
    const file = bundle('d.cjs', "throw new Error('boom');");
    expect(() => requireWithCodeCache(file)).toThrow('boom');
  });
});
