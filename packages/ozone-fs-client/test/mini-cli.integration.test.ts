// fastpath-ozone-mini runs the cluster in its own process (as the benchmarks need it) and stops
// cleanly on SIGTERM.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from '@jest/globals';
import { createOzoneClient } from '@fastpath/ozone-fs-client';

const bin = join(__dirname, '../bin/fastpath-ozone-mini.js');

it('start prints the OM address as JSON, serves clients, and exits 0 on SIGTERM', async () => {
  const child = spawn(process.execPath, [bin, 'start', '--datanodes', '2'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', () => reject(new Error('fastpath-ozone-mini exited before it was ready')));
    });
    const ready = JSON.parse(line) as { omAddress: string; datanodes: unknown[] };
    expect(ready.omAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(ready.datanodes).toHaveLength(2);
    const client = createOzoneClient({ omAddress: ready.omAddress });
    try {
      await client.createVolume('clivol');
      expect((await client.getVolume('clivol')).name).toBe('clivol');
    } finally {
      client.close();
    }
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
}, 60_000);

it('refuses a bad argument with exit code 2 and the usage', async () => {
  const child = spawn(process.execPath, [bin, 'start', '--datanodes', 'many'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).toBe(2);
  expect(stderr).toMatch(/--datanodes must be a positive integer/);
}, 60_000);
