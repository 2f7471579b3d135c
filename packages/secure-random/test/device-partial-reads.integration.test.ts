// A FIFO as the device: a pipe hands over only what has been written so far, so one reservoir
// refill takes several partial reads, and the writer closing it is a real end of file.
import { execFileSync, spawn } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { constants, mkdtempSync, openSync, closeSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FIXTURE = join(__dirname, 'fixtures', 'read-device.ts');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'secure-random-fifo-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

type DrawResult = { hex: string } | { code: string; actualBytes?: number };

/** Starts the reader on a new FIFO, feeds it `content` in `chunkBytes` pieces, then closes it. */
async function readThroughFifo(content: Buffer, chunkBytes: number, sizes: number[]): Promise<DrawResult[]> {
  const fifo = join(dir, `fifo-${sizes.join('-')}-${content.length}`);
  execFileSync('mkfifo', [fifo]);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions', 'development', FIXTURE, fifo, ...sizes.map(String)],
    { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

  // Opening a FIFO for writing waits for its reader; should the reader die first, opening the read
  // side here releases the waiting open instead of leaving it stuck forever.
  exited.then(() => closeSync(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK))).catch(() => {});
  const writer = await open(fifo, 'w');
  try {
    for (let off = 0; off < content.length; off += chunkBytes) {
      await writer.write(content.subarray(off, off + chunkBytes));
      // Let the reader take what is there before more arrives.
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    await writer.close();
  }
  const code = await exited;
  if (code !== 0) throw new Error(`reader exited with ${code}: ${stderr}`);
  return JSON.parse(stdout) as DrawResult[];
}

describe('DeviceSecureRandom on a device that delivers in pieces', () => {
  it('assembles a full reservoir from partial reads, then reports the end of the device', async () => {
    const content = randomFillSync(Buffer.alloc(8192));
    const results = await readThroughFifo(content, 1000, [8192, 1]);
    expect(results).toEqual([
      { hex: content.toString('hex') },
      { code: 'ERR_SECURE_RANDOM_SHORT_READ', actualBytes: 0 },
    ]);
  });

  it('serves nothing when the device ends before a reservoir is full', async () => {
    const content = randomFillSync(Buffer.alloc(5000));
    const results = await readThroughFifo(content, 1000, [16]);
    expect(results).toEqual([{ code: 'ERR_SECURE_RANDOM_SHORT_READ', actualBytes: 5000 }]);
  });
});
