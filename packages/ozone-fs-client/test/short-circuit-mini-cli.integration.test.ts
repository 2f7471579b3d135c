// Short-circuit across processes: fastpath-ozone-mini serves its datanodes' domain sockets in its
// own process, and this process reads a key from the block file descriptors it passes.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from '@jest/globals';
import { createOzoneClient } from '@fastpath/ozone-fs-client';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';

const bin = join(__dirname, '../bin/fastpath-ozone-mini.js');

it('reads a key short-circuit from a mini cluster in another process', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fp-scx-'));
  const template = join(dir, 'dn._PORT.sock');
  const child = spawn(
    process.execPath,
    [bin, 'start', '--datanodes', '1', '--domain-socket-path', template],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let socket: string | undefined;
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', () => reject(new Error('fastpath-ozone-mini exited before it was ready')));
    });
    const ready = JSON.parse(line) as {
      omAddress: string;
      datanodes: Array<{ address: string; domainSocketPath?: string }>;
    };
    socket = ready.datanodes[0]?.domainSocketPath;
    expect(socket).toBe(template.replace('_PORT', ready.datanodes[0]?.address.split(':')[1] ?? ''));
    expect(existsSync(socket as string)).toBe(true);
    const client = createOzoneClient({
      omAddress: ready.omAddress,
      properties: { 'ozone.client.read.short-circuit': 'true', 'ozone.domain.socket.path': template },
    });
    try {
      await client.createVolume('scvol');
      await client.createBucket('scvol', 'scbucket');
      const data = contractKeyBytes(3 * 1024 * 1024, 4);
      await client.writeKey('scvol', 'scbucket', 'k', data);
      const stream = await client.openKey('scvol', 'scbucket', 'k');
      expect((await stream.readFully(0, stream.lengthBytes)).equals(data)).toBe(true);
      expect(stream.stats).toMatchObject({
        shortCircuitGetBlocks: 1,
        readChunkCalls: 0,
        shortCircuitFallbacks: 0,
      });
      expect(stream.stats.bytesReadShortCircuit).toBe(data.length);
      stream.close();
    } finally {
      client.close();
    }
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  // The datanode removes its socket when it stops.
  expect(existsSync(socket as string)).toBe(false);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);
