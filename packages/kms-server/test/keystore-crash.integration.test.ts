import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redacted } from '@fastpath/core';
import { FileKeyStore } from '../src/internal/keystore/file-key-store.js';
import { PACKAGE_DIR, TSX_ARGS } from './support/paths.js';

const ROUNDS = 12;

/** Runs the writer until it has acknowledged `minAcks` commits plus a random pause, then SIGKILLs it. */
function runAndKill(file: string, password: string, minAcks: number, extraDelayMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...TSX_ARGS, join(PACKAGE_DIR, 'test/fixtures/keystore-writer.ts'), file, password],
      {
        cwd: PACKAGE_DIR,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let lastAck = -1;
    let acks = 0;
    let buffered = '';
    let stderr = '';
    let scheduled = false;
    const bound = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the writer made no progress: ${stderr}`));
    }, 20_000);
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        lastAck = Number(line);
        acks++;
      }
      if (acks >= minAcks && !scheduled) {
        scheduled = true;
        setTimeout(() => child.kill('SIGKILL'), extraDelayMs);
      }
    });
    child.on('exit', (_code, signal) => {
      clearTimeout(bound);
      if (signal !== 'SIGKILL') reject(new Error(`the writer exited by itself: ${stderr}`));
      else resolve(lastAck);
    });
  });
}

describe('keystore crash safety', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kms-crash-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('always reopens with the old or the new state after SIGKILL at random points during writes', async () => {
    const file = join(dir, 'kms.keystore');
    const password = 'crash-test-password';
    let previous = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const lastAck = await runAndKill(
        file,
        password,
        1 + Math.floor(Math.random() * 5),
        Math.floor(Math.random() * 60),
      );
      expect(lastAck).toBeGreaterThan(previous - 1);
      const store = await FileKeyStore.open({
        file,
        password: new Redacted(Buffer.from(password)),
        create: false,
      });
      try {
        const { generation, keys } = store.state;
        // Acknowledged commits survive; at most the one in flight at the kill is there too.
        expect([lastAck, lastAck + 1]).toContain(generation);
        const versions = keys.get('k')?.versions ?? [];
        expect(versions).toHaveLength(generation);
        versions.forEach((v, i) => expect(v.unwrap().equals(Buffer.alloc(16, i & 0xff))).toBe(true));
        previous = generation;
      } finally {
        await store.close();
      }
      expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
    }
    expect(previous).toBeGreaterThan(ROUNDS);
  }, 180_000);
});
