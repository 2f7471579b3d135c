// The warm-up never keeps a process alive: a child with a step still in flight exits by itself as
// soon as its own work is over.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';

const MAIN = join(__dirname, 'support/warmup-in-flight-main.ts');

async function runChild(): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions', 'development', MAIN], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  // A generous guard so a regression fails the test instead of hanging it; not a timing assertion.
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('exit', (c, s) => resolve([c, s])),
  );
  clearTimeout(guard);
  return { code, signal, out, err };
}

describe('a process with a warm-up in flight', () => {
  it('exits on its own with code 0 while a step is still running', async () => {
    const r = await runChild();
    expect({ code: r.code, signal: r.signal, err: r.err }).toEqual({ code: 0, signal: null, err: '' });
    expect(r.out).toContain('step started');
    expect(r.out).toContain('main done, warm-up step is running');
    expect(r.out).not.toContain('queued step ran');
  }, 90_000);
});
