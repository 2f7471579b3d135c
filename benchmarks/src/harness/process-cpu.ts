import { readdirSync, readFileSync } from 'node:fs';

// Linux clock ticks per second for /proc/<pid>/stat (USER_HZ), 100 on every common build.
const TICKS_PER_SECOND = 100;

/** One row of /proc: a process, its parent and the CPU it has used so far (user + system ticks). */
interface ProcStat {
  pid: number;
  ppid: number;
  ticks: number;
}

/** Every process's /proc/<pid>/stat, read once; null where /proc is not available. */
function readProcTable(): ProcStat[] | null {
  try {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .flatMap((d) => {
        try {
          return [parseStat(readFileSync(`/proc/${d}/stat`, 'utf8'))];
        } catch {
          return []; // the process ended while we looked
        }
      });
  } catch {
    return null;
  }
}

/** `roots` and all their descendants, in the given table. */
function treeOf(stats: readonly ProcStat[], roots: readonly number[]): Set<number> {
  const tree = new Set(roots);
  for (let grew = true; grew;) {
    grew = false;
    for (const s of stats) {
      if (!tree.has(s.pid) && tree.has(s.ppid)) {
        tree.add(s.pid);
        grew = true;
      }
    }
  }
  return tree;
}

const cpuOf = (stats: readonly ProcStat[], tree: ReadonlySet<number>): number =>
  stats.filter((s) => tree.has(s.pid)).reduce((n, s) => n + s.ticks, 0) / TICKS_PER_SECOND;

/**
 * CPU seconds (user + system) used so far by each named group of process trees, each a process
 * and its descendants (e.g. `server: [kmsPid]` with its cluster workers, `zookeeper: [pid of
 * each node]`), from one read of /proc so that the groups are read at the same moment. Null for every group where /proc is not available.
 */
export function groupsCpuSeconds(
  groups: Readonly<Record<string, readonly number[]>>,
): Record<string, number | null> {
  const stats = readProcTable();
  return Object.fromEntries(
    Object.entries(groups).map(([name, roots]) => [
      name,
      stats === null ? null : cpuOf(stats, treeOf(stats, roots)),
    ]),
  );
}

/** Fields of /proc/<pid>/stat after the command name (which may contain spaces and parentheses). */
export function parseStat(text: string): { pid: number; ppid: number; ticks: number } {
  const close = text.lastIndexOf(')');
  const rest = text.slice(close + 2).split(' ');
  // rest[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
  return {
    pid: Number(text.slice(0, text.indexOf(' '))),
    ppid: Number(rest[1]),
    ticks: Number(rest[11]) + Number(rest[12]),
  };
}

/** CPU seconds the process tree of `pid` has used so far; null where the pid is not known or /proc cannot be read. */
export function treeCpuSeconds(pid: number | undefined): number | null {
  return pid === undefined ? null : (groupsCpuSeconds({ tree: [pid] })['tree'] ?? null);
}

/** The CPU a process tree used while something ran, and how long it ran. */
export interface TreeCpuWindow {
  /** CPU ms (user + system) of the tree over the window. */
  cpuMs: number;
  /** The window's wall time, ms. */
  windowMs: number;
}

/**
 * Runs `run` and reads the CPU of `pid`'s process tree around it (e.g. a cluster's JVM while a
 * client works against it): `window` is absent where the tree's CPU cannot be read.
 */
export async function withTreeCpu<T>(
  pid: number | undefined,
  run: () => Promise<T>,
): Promise<{ value: T; window?: TreeCpuWindow }> {
  const before = treeCpuSeconds(pid);
  const startedAt = performance.now();
  const value = await run();
  const windowMs = performance.now() - startedAt;
  const after = treeCpuSeconds(pid);
  return before === null || after === null
    ? { value }
    : { value, window: { cpuMs: (after - before) * 1000, windowMs } };
}
