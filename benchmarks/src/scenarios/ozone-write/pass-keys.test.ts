import { keySeed, passKeys, warmupRow } from './ozone-write-scenario.js';
import { DEFAULT_SHAPES, QUICK_SHAPES } from './ozone-write-settings.js';

describe('the keys of a pass', () => {
  it('give both clients the same contents under distinct names, fresh names every pass', () => {
    const shape = DEFAULT_SHAPES['small-files'];
    const fastpath = passKeys('fastpath', 'p1', shape, 'small-files');
    const java = passKeys('java', 'p1', shape, 'small-files');
    expect(fastpath).toHaveLength(512);
    expect(fastpath.map((k) => k.seed)).toEqual(java.map((k) => k.seed));
    const names = new Set(
      [...fastpath, ...java, ...passKeys('fastpath', 'p2', shape, 'small-files')].map((k) => k.name),
    );
    expect(names.size).toBe(3 * 512);
    expect(fastpath[7]!.name).toBe('fastpath-p1-small-files-00007');
  });

  it('never give two keys of different rows (or the warm-up) the same content seed', () => {
    const seeds = [
      ...passKeys('fastpath', 'p1', QUICK_SHAPES.single, 'single'),
      ...passKeys('fastpath', 'p1', DEFAULT_SHAPES.parallel, 'parallel'),
      ...passKeys('fastpath', 'p1', DEFAULT_SHAPES['small-files'], 'small-files'),
      ...passKeys('fastpath', 'p1', DEFAULT_SHAPES['ec-rs-3-2'], 'ec-rs-3-2'),
      ...passKeys('fastpath', 'p1', QUICK_SHAPES['ec-rs-3-2-single'], 'ec-rs-3-2-single'),
      ...passKeys('fastpath', 'warmup', DEFAULT_SHAPES.parallel, 'warmup'),
    ].map((k) => k.seed);
    expect(new Set(seeds).size).toBe(seeds.length);
    expect(keySeed('single', 0)).not.toBe(keySeed('warmup', 0));
  });

  it('name the EC warm-up apart from the RATIS one', () => {
    const ecWarmup = { ...DEFAULT_SHAPES.parallel, replication: DEFAULT_SHAPES['ec-rs-3-2'].replication };
    expect(warmupRow(DEFAULT_SHAPES.parallel)).toBe('warmup');
    expect(warmupRow(ecWarmup)).toBe('warmup-ec');
    expect(passKeys('java', 'warmup', ecWarmup, 'warmup-ec')[0]!.name).toBe('java-warmup-warmup-ec-00000');
  });
});
