import { open, readFile, stat, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { KeystoreError } from '../../kms-errors.js';

// Lock files held by this process: a lock naming our own pid that is not in this set was left by
// an earlier process that had the same pid (a restarted container's pid 1), so it is stale.
const heldHere = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the lock file `<keystore>.lock` (holding the owner's pid) so two servers never write the
 * same keystore. A lock whose process is gone (killed, crashed) is taken over. Resolves with the
 * release function.
 */
export async function acquireKeystoreLock(keystoreFile: string): Promise<() => Promise<void>> {
  const lockFile = `${keystoreFile}.lock`;
  if (heldHere.has(lockFile)) {
    throw new KeystoreError(
      'ERR_KMS_KEYSTORE_LOCKED',
      keystoreFile,
      `the keystore ${keystoreFile} is already open in this process`,
    );
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      const handle = await open(lockFile, 'wx', 0o600);
      try {
        await handle.writeFile(`${process.pid}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      heldHere.add(lockFile);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        heldHere.delete(lockFile);
        await unlink(lockFile).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new KeystoreError(
          'ERR_KMS_KEYSTORE_IO',
          keystoreFile,
          `cannot create the lock file ${lockFile}: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
    }
    const owner = Number.parseInt((await readFile(lockFile, 'utf8').catch(() => '')).trim(), 10);
    if (Number.isSafeInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
      throw new KeystoreError(
        'ERR_KMS_KEYSTORE_LOCKED',
        keystoreFile,
        `the keystore ${keystoreFile} is in use by process ${owner} (lock file ${lockFile}); if no KMS runs there, delete the lock file`,
      );
    }
    if (!(Number.isSafeInteger(owner) && owner > 0)) {
      // Empty: another process may be between creating the file and writing its pid. Only an
      // old empty lock (torn by a crash) is taken over.
      const ageMs = await stat(lockFile).then(
        (s) => Date.now() - s.mtimeMs,
        () => Infinity,
      );
      if (ageMs < 2000) {
        await sleep(50);
        continue;
      }
    }
    // The owner is gone (or the lock is unreadable, e.g. torn by a crash): take it over.
    await unlink(lockFile).catch(() => undefined);
  }
  throw new KeystoreError('ERR_KMS_KEYSTORE_LOCKED', keystoreFile, `cannot take the lock file ${lockFile}`);
}
