import { KeyCache } from './key-cache.js';
import { DelegationKey } from '@fastpath/hadoop-common';

const key = (keyId: number, expiryDate = 100): DelegationKey =>
  new DelegationKey({ keyId, expiryDate, key: Buffer.alloc(8, keyId) });

describe('KeyCache', () => {
  it('keeps the current key current through a re-put of the same id, and never drops it on sync', () => {
    const keys = new KeyCache();
    keys.set(key(1));
    keys.setCurrent(key(2));
    expect(keys.current?.keyId).toBe(2);
    keys.set(key(2, 999)); // the retiring key gets its new expiry
    expect(keys.current?.expiryDate).toBe(999);
    expect(keys.deleteUnlessCurrent(2)).toBe(false);
    expect(keys.deleteUnlessCurrent(1)).toBe(true);
    expect(keys.ids()).toEqual([2]);
    expect(keys.highestKeyId).toBe(2);
    // An expired current key leaves the map but stays the signing key until the next one.
    expect(keys.delete(2)).toBe(true);
    expect(keys.get(2)).toBeUndefined();
    expect(keys.current?.keyId).toBe(2);
    keys.set(key(7));
    expect(keys.highestKeyId).toBe(7);
    keys.clear();
    expect([keys.current, keys.highestKeyId, keys.values().length]).toEqual([undefined, 0, 0]);
  });
});
