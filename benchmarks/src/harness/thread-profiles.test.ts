import { Worker } from 'node:worker_threads';
import type { CpuProfile } from './cpu-profile-summary.js';
import { summarizeThreadProfiles, withThreadProfiles } from './thread-profiles.js';

/** A profile of `busy` µs in one function of `url` and `idle` µs idle. */
function profile(url: string, busy: number, idle: number): CpuProfile {
  return {
    nodes: [
      { id: 1, callFrame: { functionName: '(idle)', url: '' } },
      { id: 2, callFrame: { functionName: 'f', url } },
    ],
    samples: [1, 2],
    timeDeltas: [idle, busy],
  };
}

describe('thread profiles', () => {
  it('sum the busy time of every thread and weigh each category by it', () => {
    const s = summarizeThreadProfiles([
      profile('node:internal/http2/core', 3000, 500),
      profile('file:///x/node_modules/@grpc/grpc-js/build/src/call.js', 1000, 9000),
    ]);
    expect(s.threads).toBe(2);
    expect(s.busyMs).toBe(4);
    expect(s.shares['HTTP/2 and streams (Node)']).toBeCloseTo(0.75);
    expect(s.shares['grpc-js']).toBeCloseTo(0.25);
  });

  it('profile a worker thread beside the main thread, each with its own samples', async () => {
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       function spinInWorker() { const end = Date.now() + 2; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1); parentPort.postMessage('tick'); setImmediate(spinInWorker); }
       spinInWorker();
       parentPort.postMessage('spinning');`,
      { eval: true },
    );
    try {
      await new Promise((resolve) => worker.once('message', resolve));
      let ticks = 0;
      worker.on('message', () => ticks++);
      const { result, profiles } = await withThreadProfiles(500, async () => {
        // Until the worker has spun for 500 spins (a second or more) inside the window, bounded:
        // on a loaded machine a fixed window may see it not scheduled at all, and the worker's
        // profiler starts only when its thread answers the start message, which a short window
        // (100 spins) has been seen to end before.
        const from = ticks;
        const bound = Date.now() + 20_000;
        while (ticks - from < 500 && Date.now() < bound)
          await new Promise((resolve) => setImmediate(resolve));
        return 'done';
      });
      expect(result).toBe('done');
      expect(profiles).toHaveLength(2);
      const names = (p: CpuProfile): string[] => p.nodes.map((n) => n.callFrame.functionName);
      // The worker's own frames are in its profile: spinInWorker, or where V8 has inlined it into
      // the Immediate that calls it (seen about once in five runs), the postMessage it calls,
      // which only the worker's code calls in this test.
      expect(names(profiles[1]!).some((n) => n === 'spinInWorker' || n === 'postMessage')).toBe(true);
      expect(names(profiles[0]!)).not.toContain('spinInWorker');
      expect(names(profiles[0]!)).not.toContain('postMessage');
    } finally {
      await worker.terminate();
    }
  });
});
