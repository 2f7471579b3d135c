import { Redacted } from '@fastpath/core';
import { TokenCache, type TokenInformation } from './token-cache.js';
import { DelegationTokenIdentifier } from '@fastpath/hadoop-common';

const id = (sequenceNumber: number, owner = 'alice', realUser = ''): DelegationTokenIdentifier =>
  new DelegationTokenIdentifier('kms-dt', {
    owner,
    renewer: 'yarn',
    realUser,
    issueDate: 1,
    maxDate: 2,
    sequenceNumber,
    masterKeyId: 1,
  });
const info = (renewDate: number): TokenInformation => ({
  renewDate,
  password: new Redacted(Buffer.from([renewDate])),
  trackingId: null,
});

describe('TokenCache', () => {
  it('keys tokens by every identifier field, counts real owners, and remembers the highest number', () => {
    const cache = new TokenCache();
    cache.put(id(1), info(10));
    cache.put(id(1, 'bob'), info(11)); // same number, another token: both kept (Hadoop's map)
    cache.put(id(7, 'carol', 'proxy'), info(12));
    cache.put(id(1), info(13)); // a replacement, not a new token
    expect(cache.size).toBe(3);
    expect(cache.get(id(1))?.renewDate).toBe(13);
    expect(cache.highestSequenceNumber).toBe(7);
    expect(cache.ownerCounts()).toEqual(
      new Map([
        ['alice', 1],
        ['bob', 1],
        ['proxy', 1],
      ]),
    );
    expect(cache.delete(id(1, 'bob'))).toBe(true);
    expect(cache.delete(id(1, 'bob'))).toBe(false);
    expect(cache.ownerCounts().has('bob')).toBe(false);
    cache.clear();
    expect([cache.size, cache.highestSequenceNumber, cache.ownerCounts().size]).toEqual([0, 0, 0]);
  });

  it('with one token per sequence number, a put drops the other token of that number', () => {
    const cache = new TokenCache({ oneTokenPerSequenceNumber: true });
    cache.put(id(3), info(10));
    cache.put(id(3, 'bob'), info(11));
    expect(cache.size).toBe(1);
    expect(cache.get(id(3))).toBeUndefined();
    expect(cache.bySequenceNumber(3)?.owner).toBe('bob');
    expect(cache.ownerCounts()).toEqual(new Map([['bob', 1]]));
    cache.deleteSequenceNumber(3);
    expect(cache.size).toBe(0);
  });

  it('makes open tickets stale when their token is removed, and only then', () => {
    const cache = new TokenCache();
    cache.put(id(5), info(10));
    const early = cache.openTicket(5);
    const other = cache.openTicket(6);
    cache.put(id(5), info(11)); // an update does not make a read stale
    expect(early.stale).toBe(false);
    cache.delete(id(5));
    expect(early.stale).toBe(true);
    expect(other.stale).toBe(false);
    const late = cache.openTicket(5); // opened after the removal: fresh
    expect(late.stale).toBe(false);
    cache.deleteSequenceNumber(6); // nothing cached for 6: its readers still learn of the removal
    expect(other.stale).toBe(true);
    for (const [seq, t] of [
      [5, early],
      [6, other],
      [5, late],
    ] as const)
      cache.closeTicket(seq, t);
    cache.put(id(8), info(1));
    const t8 = cache.openTicket(8);
    cache.clear();
    expect(t8.stale).toBe(true);
  });
});
