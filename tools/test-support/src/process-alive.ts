/**
 * Whether a process with this pid exists (signal 0 checks without sending anything). EPERM means
 * it exists but belongs to someone else; only ESRCH means it is gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    if ((err as NodeJS.ErrnoException).code === 'EPERM') return true;
    throw err;
  }
}
