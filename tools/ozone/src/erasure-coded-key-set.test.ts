import { createHash } from 'node:crypto';
import { InvalidOptionError } from '@fastpath/core';
import { erasureCodedKeySet } from './erasure-coded-key-set.js';

describe('erasureCodedKeySet', () => {
  it('sizes the keys on the edges of cells, stripes and block groups (rs-3-2-64k, 128 KiB blocks)', () => {
    const set = erasureCodedKeySet();
    const c = 65_536;
    expect(set).toMatchObject({ volume: 'ec-keys', bucket: 'rs-3-2-64k', blockSizeBytes: 2 * c });
    expect(set.keys.map((k) => [k.name, k.sizeBytes])).toEqual([
      ['empty', 0],
      ['one-byte', 1],
      ['cell-minus-one', c - 1],
      ['cell', c],
      ['cell-plus-one', c + 1],
      ['stripe-minus-one', 3 * c - 1],
      ['stripe', 3 * c],
      ['stripe-plus-one', 3 * c + 1],
      ['several-groups', 2 * 6 * c + 3 * c + c + 7],
    ]);
    const several = set.keys[8];
    expect(several?.groupLengths).toEqual([6 * c, 6 * c, 4 * c + 7]);
    expect(several?.internalBlockLengths[2]).toEqual([2 * c, c + 7, c, 2 * c, 2 * c]);
    expect(set.specs[1]).toEqual({
      volume: 'ec-keys',
      bucket: 'rs-3-2-64k',
      key: 'one-byte',
      size: 1,
      seed: 1001,
      blockSizeBytes: 2 * c,
      replication: 'rs-3-2-64k',
    });
  });

  it('gives each key its bytes and their SHA-256, and says what survives the loss of replicas', () => {
    const set = erasureCodedKeySet({ replication: 'rs-3-2-1k', viaBucketDefault: true, seed: 5 });
    expect(set.bucket).toBe('rs-3-2-1k-default');
    expect(set.specs.every((s) => s.bucketReplication === 'rs-3-2-1k' && s.replication === undefined)).toBe(
      true,
    );
    for (const key of set.keys) {
      expect(createHash('sha256').update(key.expectedBytes()).digest('hex')).toBe(key.sha256);
      expect(key.expectedBytes().length).toBe(key.sizeBytes);
    }
    const byName = Object.fromEntries(set.keys.map((k) => [k.name, k]));
    const lost = [1, 2, 3];
    expect(set.keys.filter((k) => set.readable(k, lost)).map((k) => k.name)).toEqual([
      'empty',
      'one-byte',
      'cell-minus-one',
      'cell',
      'cell-plus-one',
    ]);
    expect(set.readable(byName['several-groups']!, [2, 5])).toBe(true);
  });

  it('refuses a block size that is not a whole number of cells', () => {
    expect(() => erasureCodedKeySet({ blockSizeBytes: 100_000 })).toThrow(InvalidOptionError);
    expect(() => erasureCodedKeySet({ replication: 'rs-3-2' as never })).toThrow(/replication/);
  });
});
