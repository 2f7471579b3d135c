import { readdirSync, readFileSync } from 'node:fs';

// Linux clock ticks per second for /proc/<pid>/stat (USER_HZ), 100 on every common build.
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) used so far by `pid` and its descendants (the cluster workers of a
 * multi-process KMS), read from /proc. Returns null where /proc is not available.
 */
export function processTreeCpuSeconds(pid: number): number | null {
  let stats: Array<{ pid: number; ppid: number; ticks: number }>;
  try {
    stats = readdirSync('/proc')
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
  const tree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const s of stats) {
      if (!tree.has(s.pid) && tree.has(s.ppid)) {
        tree.add(s.pid);
        grew = true;
      }
    }
  }
  const ticks = stats.filter((s) => tree.has(s.pid)).reduce((n, s) => n + s.ticks, 0);
  return ticks / TICKS_PER_SECOND;
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
