import { join } from 'node:path';
import { startTsWorker } from './support/ts-worker.js';

const WORKERS = 10;
const DRAWS = 1000; // per worker: 6 draws of 16 bytes each

function runWorker(barrier: Int32Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const worker = startTsWorker(join(__dirname, 'fixtures', 'draw-in-worker.ts'), {
      barrier,
      workers: WORKERS,
      draws: DRAWS,
    });
    worker.once('message', (bytes: Uint8Array) =>
      resolve(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`worker exited with code ${code}`));
    });
  });
}

describe('worker threads', () => {
  it('never share random state: ten workers drawing at once produce pairwise-distinct bytes', async () => {
    const barrier = new Int32Array(new SharedArrayBuffer(4));
    const outputs = await Promise.all(Array.from({ length: WORKERS }, () => runWorker(barrier)));

    const seen = new Set<string>();
    for (const output of outputs) {
      expect(output.length).toBe(DRAWS * 6 * 16);
      for (let off = 0; off < output.length; off += 16) seen.add(output.toString('hex', off, off + 16));
    }
    // 60,000 draws of 128 bits: any repeat means two streams (or one stream twice) were the same.
    expect(seen.size).toBe(WORKERS * DRAWS * 6);
  });
});
