import { DEFAULT_ZOOKEEPER_WARMUP_OPTIONS, hasSettled } from './zookeeper-warmup.js';

const rule = { settleBatches: 3, settleTolerance: 0.1 };

describe('the ZooKeeper warm-up settle rule', () => {
  it('waits while a compiling JVM still lowers its per-create CPU batch after batch', () => {
    // The shape measured on a fresh ZooKeeper: ~1 ms per creation falling to ~0.45 ms.
    const falling = [1000, 800, 650, 560, 500];
    for (let n = 1; n <= falling.length; n++) expect(hasSettled(falling.slice(0, n), rule)).toBe(false);
  });

  it('settles once the last batches agree within the tolerance', () => {
    expect(hasSettled([1000, 700, 480, 455, 450], rule)).toBe(true);
    // 10% exactly is inside; just over is not.
    expect(hasSettled([500, 550, 520], rule)).toBe(true);
    expect(hasSettled([500, 551, 520], rule)).toBe(false);
  });

  it('looks only at the last batches, so an early plateau followed by a drop does not count', () => {
    expect(hasSettled([900, 890, 880, 600], rule)).toBe(false);
    expect(hasSettled([900, 890, 880, 600, 590, 585], rule)).toBe(true);
  });

  it('never settles without enough batches or without a CPU reading', () => {
    expect(hasSettled([], rule)).toBe(false);
    expect(hasSettled([450, 450], rule)).toBe(false);
    expect(hasSettled([0, 0, 0], rule)).toBe(false);
    expect(hasSettled([450, 450, 450], { settleBatches: 1, settleTolerance: 0.1 })).toBe(false);
  });

  it('is the rule the defaults use: three batches within 10%', () => {
    expect(DEFAULT_ZOOKEEPER_WARMUP_OPTIONS).toMatchObject(rule);
  });
});
