import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  eventLoopProbeEnv,
  probedPids,
  readEventLoopWindow,
} from '../src/scenarios/kms-http/event-loop-probe.js';

// Jest runs from the package folder.
const PROBE = path.resolve('src/scenarios/kms-http/event-loop-probe.mjs');
// A process whose loop blocks for 30 ms (wall clock) every 100 ms: every block delays a tick by
// at least ~29 ms beyond the resolution and keeps the loop busy about a third of the time,
// however fast or loaded the machine is. It reports each block, so the test waits for blocks,
// not for a time.
const BLOCKING =
  'setInterval(() => { const end = Date.now() + 30; while (Date.now() < end); process.send?.("block"); }, 100); process.send?.("up");';

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (check()) return;
    await sleep(50);
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('the event-loop probe loaded into a Node process through NODE_OPTIONS', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'bench-loop-probe-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('announces itself, snapshots on SIGUSR2, and measures the delay beyond 1 ms and the busy share', async () => {
    const child = spawn(process.execPath, ['-e', BLOCKING], {
      env: { ...process.env, ...eventLoopProbeEnv(dir, PROBE) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    try {
      let blocks = 0;
      child.on('message', (m) => {
        if (m === 'block') blocks++;
      });
      const pid = child.pid!;
      await until(() => probedPids(dir).includes(pid), 'the ready file');
      child.kill('SIGUSR2');
      await until(() => existsSync(path.join(dir, `${pid}-1.json`)), 'the first snapshot');
      // A window that holds several blocks of the loop.
      const blocksAtFirst = blocks;
      await until(() => blocks >= blocksAtFirst + 10, 'ten blocks of the loop after the first snapshot');
      child.kill('SIGUSR2');
      await until(() => existsSync(path.join(dir, `${pid}-2.json`)), 'the second snapshot');
      expect(child.exitCode).toBeNull(); // the signal did not end it

      const window = readEventLoopWindow(dir)!;
      expect(window.resolutionMs).toBe(1);
      expect(window.processes.map((p) => p.pid)).toEqual([pid]);
      expect(window.busiest!.maxMs).toBeGreaterThan(20);
      expect(window.busiest!.utilization).toBeGreaterThan(0.1);
      expect(window.busiest!.utilization).toBeLessThan(1);
      expect(window.busiest!.samples).toBeGreaterThan(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);

  it('leaves a process that did not load it alone: no ready file, so it is never signalled', async () => {
    const child = spawn(process.execPath, ['-e', BLOCKING], {
      env: { ...process.env, FASTPATH_BENCH_LOOP_DIR: dir },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    try {
      await new Promise((resolve) => child.once('message', resolve));
      expect(probedPids(dir)).toEqual([]);
      expect(readEventLoopWindow(dir)).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
