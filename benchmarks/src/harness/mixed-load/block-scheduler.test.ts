import { BLOCK_SIZE, BlockScheduler } from './block-scheduler.js';
import { parseMix, seededRandom } from './operation-mix.js';

describe('BlockScheduler', () => {
  it('hands out exactly the mix in every block of 100', () => {
    for (const label of ['100:0', '99:1', '95:5', '90:10', '0:100']) {
      const scheduler = new BlockScheduler(parseMix(label), seededRandom(7));
      for (let block = 0; block < 20; block++) {
        const ops = Array.from({ length: BLOCK_SIZE }, () => scheduler.next());
        const creates = ops.filter((op) => op === 'create').length;
        expect(creates).toBe(parseMix(label).create);
        expect(BLOCK_SIZE - creates).toBe(parseMix(label).verify);
      }
      expect(scheduler.completeBlocks).toBe(20);
      expect(scheduler.tailSubmissions).toEqual({ verify: 0, create: 0 });
    }
  });

  it('shuffles each block: creations do not always sit in the same places', () => {
    const scheduler = new BlockScheduler(parseMix('90:10'), seededRandom(1));
    const positions = new Set<string>();
    for (let block = 0; block < 10; block++) {
      const ops = Array.from({ length: BLOCK_SIZE }, () => scheduler.next());
      positions.add(
        ops
          .map((op, i) => (op === 'create' ? i : -1))
          .filter((i) => i >= 0)
          .join(','),
      );
    }
    expect(positions.size).toBe(10);
  });

  it('is repeatable for a seed', () => {
    const a = new BlockScheduler(parseMix('95:5'), seededRandom(42));
    const b = new BlockScheduler(parseMix('95:5'), seededRandom(42));
    expect(Array.from({ length: 300 }, () => a.next())).toEqual(Array.from({ length: 300 }, () => b.next()));
  });

  it('records the submissions of an unfinished block as the tail', () => {
    const scheduler = new BlockScheduler(parseMix('90:10'), seededRandom(3));
    const ops = Array.from({ length: 250 }, () => scheduler.next());
    expect(scheduler.completeBlocks).toBe(2);
    const tail = ops.slice(200);
    expect(scheduler.tailSubmissions).toEqual({
      verify: tail.filter((op) => op === 'verify').length,
      create: tail.filter((op) => op === 'create').length,
    });
  });
});

describe('parseMix', () => {
  it('accepts verify:create adding up to 100 and refuses anything else', () => {
    expect(parseMix('90:10')).toEqual({ label: '90:10', verify: 90, create: 10 });
    for (const bad of ['90:11', '90', 'a:b', '-10:110', '']) {
      expect(() => parseMix(bad)).toThrow(/adding up to 100/);
    }
  });
});
