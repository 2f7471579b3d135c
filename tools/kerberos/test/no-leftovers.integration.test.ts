import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pollUntil } from '@fastpath/jvm-fixture';
import { isAlive } from '@fastpath/test-support';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kdc-parent-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('a KDC whose test process dies', () => {
  it('is killed and its folder deleted even when the process is SIGKILLed (no exit handlers run)', async () => {
    // One node process running the TypeScript sources (tsx's loader, the development condition),
    // so that SIGKILL hits the process that started the KDC itself.
    const parentFile = join(scratch, 'parent.mts');
    await writeFile(
      parentFile,
      `import { startKdc } from ${JSON.stringify(join(__dirname, '..', 'src', 'index.ts'))};\n` +
        `const kdc = await startKdc();\n` +
        `await kdc.kinit('client');\n` +
        `process.stdout.write('pid=' + kdc.pid + ' dir=' + kdc.dir + '\\n');\n` +
        `setInterval(() => undefined, 1000);\n`,
    );
    const parent = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', parentFile], {
      cwd: __dirname,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const started = await new Promise<{ pid: number; dir: string }>((resolve, reject) => {
        let seen = '';
        parent.stdout.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          const m = /pid=(\d+) dir=(\S+)\n/.exec(seen);
          if (m !== null) resolve({ pid: Number(m[1]), dir: m[2] ?? '' });
        });
        parent.on('exit', (code) => reject(new Error(`parent exited (${String(code)}) early: ${seen}`)));
      });
      expect(isAlive(started.pid)).toBe(true);
      expect(existsSync(join(started.dir, 'krb5.conf'))).toBe(true);
      parent.kill('SIGKILL');
      const gone = await pollUntil(() => Promise.resolve(isAlive(started.pid) ? undefined : true), {
        timeoutMs: 30_000,
      });
      expect(gone).toBe(true);
      const removed = await pollUntil(() => Promise.resolve(existsSync(started.dir) ? undefined : true), {
        timeoutMs: 30_000,
      });
      expect(removed).toBe(true);
    } finally {
      if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
      parent.stdout.destroy();
    }
  });
});
