import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { numberField, asRecord } from '../../all/json-fields.js';

/** The probe's module, relative to the benchmarks' source folder (for `ctx.sourcePath`). */
export const EVENT_LOOP_PROBE_MODULE = 'scenarios/kms-http/event-loop-probe.mjs';

/**
 * The environment that loads the probe (`probePath`, absolute) into a Node server and its cluster
 * workers, writing its snapshots to `dir`.
 */
export function eventLoopProbeEnv(dir: string, probePath: string): Record<string, string> {
  const probe = pathToFileURL(probePath).href;
  return {
    FASTPATH_BENCH_LOOP_DIR: dir,
    NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${probe}`].filter((o) => o).join(' '),
  };
}

/** How the event loop was measured, as the report says it. */
export const EVENT_LOOP_METHOD =
  'monitorEventLoopDelay({ resolution: 1 }) inside the server (delay = interval between 1 ms ticks minus the 1 ms) ' +
  'and performance.eventLoopUtilization() over the measured window';

/** One snapshot the probe writes at a window boundary. */
export interface EventLoopSnapshot {
  pid: number;
  seq: number;
  atMs: number;
  resolutionMs: number;
  delay: { count: number; meanNs: number; p50Ns: number; p99Ns: number; maxNs: number };
  elu: { idleMs: number; activeMs: number };
}

/** One process's event loop over the measured window. */
export interface EventLoopFigures {
  pid: number;
  /** Delay beyond the timer's resolution, ms. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  samples: number;
  /** Share of the window the loop was busy (0-1). */
  utilization: number;
}

/** The server's event loop over the window: per process, and the busiest process's figures. */
export interface EventLoopWindow {
  method: string;
  resolutionMs: number;
  processes: EventLoopFigures[];
  /** The process with the highest utilization: the one that served (a cluster's primary idles). */
  busiest: EventLoopFigures | null;
}

/**
 * The window between the last two snapshots of each process: the histogram of the last one
 * (reset at the one before) and the utilization from the difference of their totals. Processes
 * with fewer than two snapshots (started or ended inside the window) are left out.
 */
export function eventLoopWindowOf(snapshots: readonly EventLoopSnapshot[]): EventLoopWindow | null {
  const byPid = new Map<number, EventLoopSnapshot[]>();
  for (const s of snapshots) byPid.set(s.pid, [...(byPid.get(s.pid) ?? []), s]);
  const processes: EventLoopFigures[] = [];
  let resolutionMs = 0;
  for (const [pid, list] of [...byPid].sort((a, b) => a[0] - b[0])) {
    const [start, end] = [...list].sort((a, b) => a.seq - b.seq).slice(-2);
    if (start === undefined || end === undefined) continue;
    resolutionMs = end.resolutionMs;
    const beyond = (ns: number): number => Math.max(0, ns / 1e6 - end.resolutionMs);
    const active = end.elu.activeMs - start.elu.activeMs;
    const idle = end.elu.idleMs - start.elu.idleMs;
    processes.push({
      pid,
      p50Ms: beyond(end.delay.p50Ns),
      p99Ms: beyond(end.delay.p99Ns),
      maxMs: beyond(end.delay.maxNs),
      meanMs: beyond(end.delay.meanNs),
      samples: end.delay.count,
      utilization: active + idle > 0 ? active / (active + idle) : 0,
    });
  }
  if (processes.length === 0) return null;
  const busiest = processes.reduce((a, b) => (b.utilization > a.utilization ? b : a));
  return { method: EVENT_LOOP_METHOD, resolutionMs, processes, busiest };
}

/** The processes that loaded the probe writing to `dir` (each wrote `<pid>.ready`). */
export function probedPids(dir: string): number[] {
  try {
    return readdirSync(dir).flatMap((f) => {
      const m = /^(\d+)\.ready$/.exec(f);
      return m ? [Number(m[1])] : [];
    });
  } catch {
    return [];
  }
}

/** Reads the probe's snapshots from `dir` (written by the server's processes); null when there are none. */
export function readEventLoopWindow(dir: string): EventLoopWindow | null {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => /^\d+-\d+\.json$/.test(f));
  } catch {
    return null;
  }
  const snapshots = files.flatMap((f): EventLoopSnapshot[] => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
    } catch {
      return [];
    }
    const s = asRecord(parsed);
    const delay = asRecord(s?.delay);
    const elu = asRecord(s?.elu);
    const n = (r: typeof s, k: string): number => numberField(r ?? null, k) ?? NaN;
    const snapshot: EventLoopSnapshot = {
      pid: n(s, 'pid'),
      seq: n(s, 'seq'),
      atMs: n(s, 'atMs'),
      resolutionMs: n(s, 'resolutionMs'),
      delay: {
        count: n(delay, 'count'),
        meanNs: n(delay, 'meanNs'),
        p50Ns: n(delay, 'p50Ns'),
        p99Ns: n(delay, 'p99Ns'),
        maxNs: n(delay, 'maxNs'),
      },
      elu: { idleMs: n(elu, 'idleMs'), activeMs: n(elu, 'activeMs') },
    };
    return Number.isFinite(snapshot.pid) && Number.isFinite(snapshot.seq) ? [snapshot] : [];
  });
  return eventLoopWindowOf(snapshots);
}
