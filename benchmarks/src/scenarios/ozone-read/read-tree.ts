import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Reads every file under `dir` once, so later reads find it in the page cache; returns the bytes read. */
export async function readTree(dir: string): Promise<number> {
  let bytes = 0;
  const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) bytes += await readTree(path);
    else if (entry.isFile()) {
      const fh = await open(path, 'r');
      try {
        for (let n = 1; n > 0;) {
          n = (await fh.read(buffer, 0, buffer.length, null)).bytesRead;
          bytes += n;
        }
      } finally {
        await fh.close();
      }
    }
  }
  return bytes;
}
