import { execFileSync } from 'node:child_process';

/** Whether a process with this pid exists (a zombie counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    const state = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return state !== '' && !state.startsWith('Z');
  } catch {
    return false; // ps exits 1 when the pid is unknown
  }
}

/** Pids of launcher JVMs whose command line names `dir` (the fixture passes it as --base-dir). */
export function launcherJvmsUnder(dir: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes('fastpath.ozonefixture.OzoneClusterLauncher') && line.includes(dir))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}
