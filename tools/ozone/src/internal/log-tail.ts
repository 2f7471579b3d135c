import { open } from 'node:fs/promises';

/** The last `maxLines` lines of a log file (reading at most its last `maxBytes`), or a note why not. */
export async function logTail(file: string, maxLines = 40, maxBytes = 16_384): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    if (length < size) lines.shift(); // a partial first line
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.slice(-maxLines).join('\n');
  } catch (err) {
    return `(no log: ${(err as Error).message})`;
  } finally {
    await handle?.close();
  }
}
