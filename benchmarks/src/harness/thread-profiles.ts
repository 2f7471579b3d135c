// V8's sampling profiler on every thread of this process at once: the main thread through the
// inspector, and each worker thread (fastpath's read workers) through the inspector's NodeWorker
// domain, which relays protocol messages to a worker's own inspector. A thread's profile holds
// only that thread's samples, so the reader's CPU is the sum over all of them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import {
  PROFILE_CATEGORIES,
  summarizeCpuProfile,
  type CpuProfile,
  type ProfileSummary,
} from './cpu-profile-summary.js';

interface WorkerReply {
  id?: number;
  result?: unknown;
  error?: { message: string };
}

/** One thread's protocol: the main thread's session, or a worker's through it. */
type Post = (method: string, params?: Record<string, unknown>) => Promise<unknown>;

/**
 * Runs `work` with every thread of the process profiled (`intervalUs` between samples; threads
 * started meanwhile are profiled from when they attach) and returns its result with each thread's
 * profile, the main thread's first.
 */
export async function withThreadProfiles<T>(
  intervalUs: number,
  work: () => Promise<T>,
): Promise<{ result: T; profiles: CpuProfile[] }> {
  const session = new Session();
  session.connect();
  let nextId = 1;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const workers: Array<Promise<Post | undefined>> = [];
  session.on('NodeWorker.receivedMessageFromWorker', (m) => {
    const reply = JSON.parse(m.params.message) as WorkerReply;
    const w = reply.id === undefined ? undefined : waiting.get(reply.id);
    if (!w) return;
    waiting.delete(reply.id as number);
    if (reply.error) w.reject(new Error(reply.error.message));
    else w.resolve(reply.result);
  });
  const start = async (post: Post): Promise<void> => {
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: intervalUs });
    await post('Profiler.start');
  };
  session.on('NodeWorker.attachedToWorker', (m) => {
    const { sessionId } = m.params;
    const post: Post = (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        void session
          .post('NodeWorker.sendMessageToWorker', {
            sessionId,
            message: JSON.stringify({ id, method, params }),
          })
          .catch(reject);
      });
    // A worker that ends before it answers is left out, not waited for.
    workers.push(
      start(post).then(
        () => post,
        () => undefined,
      ),
    );
  });
  const main: Post = (method, params) => session.post(method, params);
  try {
    await start(main);
    await session.post('NodeWorker.enable', { waitForDebuggerOnStart: false });
    await Promise.all(workers);
    const result = await work();
    const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
    const profiles = [profile];
    for (const post of await Promise.all(workers)) {
      if (!post) continue;
      const stopped = (await Promise.race([
        post('Profiler.stop'),
        new Promise((resolve) => setTimeout(resolve, 10_000).unref()),
      ])) as { profile: CpuProfile } | undefined;
      if (stopped) profiles.push(stopped.profile);
    }
    return { result, profiles };
  } finally {
    await session.post('NodeWorker.disable').catch(() => undefined);
    session.disconnect();
  }
}

/**
 * The busy time of several threads' profiles together, and each category's share of it;
 * `threads` counts those busy for at least 1% of it (tsx's module-loader threads, idle once the
 * modules are loaded, are profiled too).
 */
export function summarizeThreadProfiles(
  profiles: readonly CpuProfile[],
): ProfileSummary & { threads: number } {
  const summaries = profiles.map(summarizeCpuProfile);
  const busyMs = summaries.reduce((n, s) => n + s.busyMs, 0);
  const shares = Object.fromEntries(
    PROFILE_CATEGORIES.map((k) => [
      k,
      busyMs > 0 ? summaries.reduce((n, s) => n + s.busyMs * s.shares[k], 0) / busyMs : 0,
    ]),
  ) as ProfileSummary['shares'];
  const threads = summaries.filter((s) => s.busyMs >= 0.01 * busyMs).length;
  return { busyMs, shares, threads };
}

/**
 * Runs `work` under V8's sampling profiler on every thread (500 µs between samples): the main
 * thread's profile written to `file`, each worker thread's beside it as
 * `<name>.worker-<n>.cpuprofile`, and all summed by category (each thread's profile returned too,
 * the main thread's first). Run it in a window of its own, after
 * the measured ones, so that the profiler's cost is in no measured figure.
 */
export async function runProfiled<T>(
  file: string,
  work: () => Promise<T>,
): Promise<{ result: T; profile: ProfileSummary & { threads: number }; profiles: CpuProfile[] }> {
  const { result, profiles } = await withThreadProfiles(500, work);
  mkdirSync(path.dirname(file), { recursive: true });
  profiles.forEach((profile, i) =>
    writeFileSync(
      i === 0 ? file : file.replace(/\.cpuprofile$/, `.worker-${i}.cpuprofile`),
      JSON.stringify(profile),
    ),
  );
  return { result, profile: summarizeThreadProfiles(profiles), profiles };
}
