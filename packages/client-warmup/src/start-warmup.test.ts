import { readFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { currentWarmup, runWarmup, startWarmup } from './start-warmup.js';

describe('runWarmup', () => {
  it('returns before any step runs, then runs the steps in order', async () => {
    const ran: string[] = [];
    const handle = runWarmup({
      steps: [
        { name: 'a', run: () => void ran.push('a') },
        {
          name: 'b',
          run: () => {
            ran.push('b');
            return Promise.resolve();
          },
        },
      ],
    });
    // The caller's own synchronous work comes first: nothing ran during the call.
    expect(ran).toEqual([]);
    expect(handle.state('a')).toBe('pending');
    expect(handle.steps).toEqual(['a', 'b']);
    const outcomes = await handle.done;
    expect(ran).toEqual(['a', 'b']);
    expect(outcomes.map((o) => [o.name, o.state])).toEqual([
      ['a', 'done'],
      ['b', 'done'],
    ]);
    expect(handle.state('b')).toBe('done');
    expect(handle.state('unknown')).toBeUndefined();
  });

  it('gives I/O and timers a turn between steps', async () => {
    const order: string[] = [];
    const handle = runWarmup({
      steps: [
        { name: 'one', run: () => void order.push('one') },
        { name: 'two', run: () => void order.push('two') },
      ],
    });
    // Scheduled after the warm-up started; still runs before the second step.
    setImmediate(() => order.push('caller'));
    await handle.done;
    expect(order).toEqual(['one', 'caller', 'two']);
  });

  it('a step that throws, rejects or reads an unreadable CA file fails alone; the rest still run', async () => {
    const ran: string[] = [];
    const handle = runWarmup({
      steps: [
        {
          name: 'throws',
          run: () => {
            throw new Error('module failed to load');
          },
        },
        { name: 'rejects', run: () => Promise.reject(new Error('no')) },
        { name: 'ca-file', run: () => readFile('/nonexistent/ca.pem') },
        { name: 'after', run: () => void ran.push('after') },
      ],
    });
    const outcomes = await handle.done;
    expect(outcomes.map((o) => [o.name, o.state])).toEqual([
      ['throws', 'failed'],
      ['rejects', 'failed'],
      ['ca-file', 'failed'],
      ['after', 'done'],
    ]);
    expect(outcomes[0]?.error).toBe('module failed to load');
    expect(outcomes[2]?.error).toContain('ENOENT');
    expect(ran).toEqual(['after']);
  });

  it('a malformed plan runs nothing and does not throw', async () => {
    expect(await runWarmup(undefined as never).done).toEqual([]);
    expect(await runWarmup({ steps: [{ name: 'x' } as never] }).done).toEqual([]);
  });
});

describe('startWarmup', () => {
  it('starts once per process: a second call returns the first handle and its plan never runs', async () => {
    expect(currentWarmup()).toBeUndefined();
    let first = 0;
    let second = 0;
    const h1 = startWarmup({ steps: [{ name: 'first', run: () => void first++ }] });
    const h2 = startWarmup({ steps: [{ name: 'second', run: () => void second++ }] });
    const h3 = startWarmup({ steps: [{ name: 'first', run: () => void first++ }] });
    expect(h2).toBe(h1);
    expect(h3).toBe(h1);
    expect(currentWarmup()).toBe(h1);
    await h1.done;
    expect([first, second]).toEqual([1, 0]);
    expect(h1.steps).toEqual(['first']);
  });
});
