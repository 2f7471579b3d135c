import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { PROFILE_PROBE_DIR_ENV } from './profile-probe-protocol.js';
import { collectServerProfile, withProfileProbe } from './server-profile-probe.js';

const dirs: string[] = [];
const scratch = (): string => {
  const dir = mkdtempSync(path.join(tmpdir(), 'server-profile-probe-test-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A profile of `busyUs` in one function of `url`, after the first sample (which counts nothing). */
const profile = (functionName: string, url: string, busyUs: number) => ({
  nodes: [
    { id: 1, callFrame: { functionName: '(idle)', url: '' } },
    { id: 2, callFrame: { functionName, url } },
  ],
  samples: [1, 2, 1],
  timeDeltas: [1000, busyUs, 500],
});

describe('the profile probe, from the benchmark', () => {
  it("adds the probe's --import to the event-loop probe's NODE_OPTIONS and names its directory", () => {
    const env = withProfileProbe(
      { NODE_OPTIONS: '--import=file:///b/event-loop-probe.mjs', OTHER: 'x' },
      '/tmp/p',
      '/b/dist/profile-probe.js',
    );
    expect(env).toEqual({
      NODE_OPTIONS: '--import=file:///b/event-loop-probe.mjs --import=file:///b/dist/profile-probe.js',
      OTHER: 'x',
      [PROFILE_PROBE_DIR_ENV]: '/tmp/p',
    });
  });

  it("sums every process's threads, names the busiest main thread's functions and keeps the files", async () => {
    const dir = scratch();
    const results = scratch();
    // A cluster: an idle primary (11) and a worker (12) with a worker thread of its own.
    for (const pid of [11, 12]) writeFileSync(path.join(dir, `${pid}.ready`), '');
    const write = (name: string, p: unknown): void => writeFileSync(path.join(dir, name), JSON.stringify(p));
    write('11-1.cpuprofile', profile('tick', 'node:internal/timers', 10));
    write('12-1.cpuprofile', profile('route', 'file:///n/node_modules/fastify/lib/route.js', 3000));
    write('12-1.worker-1.cpuprofile', profile('verify', 'file:///p/packages/kms-server/src/a.ts', 1000));
    for (const pid of [11, 12]) write(`${pid}-1.done`, {});
    const got = await collectServerProfile(dir, 1, path.join(results, 'profiles', 'case-i0'), 1000);
    expect(got.profile.busyMs).toBeCloseTo(4.01);
    // Threads busy for 1% of the time or more: the primary's timer ticks are not.
    expect(got.profile.threads).toBe(2);
    expect(got.profile.shares.Fastify).toBeCloseTo(3 / 4.01);
    expect(got.profile.shares['fastpath server']).toBeCloseTo(1 / 4.01);
    expect(got.topFunctions.map((f) => f.functionName)).toEqual(['route']);
    expect(got.files.map((f) => path.relative(results, f)).sort()).toEqual([
      'profiles/case-i0-11.cpuprofile',
      'profiles/case-i0-12.cpuprofile',
      'profiles/case-i0-12.worker-1.cpuprofile',
    ]);
    expect(JSON.parse(readFileSync(path.join(results, 'profiles', 'case-i0-12.cpuprofile'), 'utf8'))).toEqual(
      profile('route', 'file:///n/node_modules/fastify/lib/route.js', 3000),
    );
  });

  it('fails when a process reports an error, or writes nothing in time', async () => {
    const dir = scratch();
    writeFileSync(path.join(dir, '21.ready'), '');
    await expect(collectServerProfile(dir, 1, path.join(scratch(), 'x'), 300)).rejects.toThrow(
      /process 21 wrote no profile within 300 ms/,
    );
    writeFileSync(path.join(dir, '21-1.done'), JSON.stringify({ error: 'Error: no inspector' }));
    await expect(collectServerProfile(dir, 1, path.join(scratch(), 'x'), 300)).rejects.toThrow(
      /profiling process 21 failed: Error: no inspector/,
    );
    await expect(collectServerProfile(scratch(), 1, path.join(scratch(), 'x'), 300)).rejects.toThrow(
      /no process loaded the profile probe/,
    );
  });
});
