import { PersistBatcher, type PersistRequest } from './persist-batcher.js';

const req = (i: number): PersistRequest => ({ path: `/t/DT_${i}`, data: Buffer.from([i]) });

describe('PersistBatcher', () => {
  it('writes requests submitted in the same turn together, and those arriving meanwhile in the next batch', async () => {
    const batches: string[][] = [];
    let release!: () => void;
    const firstWrite = new Promise<void>((resolve) => (release = resolve));
    const batcher = new PersistBatcher(
      async (batch) => {
        batches.push(batch.map((r) => r.path));
        if (batches.length === 1) await firstWrite;
      },
      100,
      1,
    );
    const first = [1, 2, 3].map((i) => batcher.submit(req(i)));
    await new Promise((resolve) => setImmediate(resolve));
    const second = [4, 5].map((i) => batcher.submit(req(i)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toHaveLength(1); // one batch in flight at a time
    release();
    await Promise.all([...first, ...second]);
    expect(batches).toEqual([
      ['/t/DT_1', '/t/DT_2', '/t/DT_3'],
      ['/t/DT_4', '/t/DT_5'],
    ]);
  });

  it('splits at the batch size limit', async () => {
    const sizes: number[] = [];
    const batcher = new PersistBatcher(
      (batch) => {
        sizes.push(batch.length);
        return Promise.resolve();
      },
      4,
      10,
    );
    await Promise.all(Array.from({ length: 10 }, (_, i) => batcher.submit(req(i))));
    expect(sizes).toEqual([4, 4, 2]);
  });

  it('fails every request of a failed batch with its error, and goes on with the next', async () => {
    let calls = 0;
    const batcher = new PersistBatcher(
      () => (++calls === 1 ? Promise.reject(new Error('node exists')) : Promise.resolve()),
      100,
      1,
    );
    const failed = await Promise.allSettled([1, 2, 3].map((i) => batcher.submit(req(i))));
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(failed.map((r) => String((r as PromiseRejectedResult).reason))).toEqual(
      Array(3).fill('Error: node exists'),
    );
    await expect(batcher.submit(req(4))).resolves.toBeUndefined();
  });
});
