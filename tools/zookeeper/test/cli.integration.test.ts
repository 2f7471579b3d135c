import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fourLetterWord } from '@fastpath/zookeeper-fixture';
import { isAlive, within } from './support.js';

jest.setTimeout(60_000);

const BIN = join(__dirname, '..', 'bin', 'fastpath-zookeeper.js');

function runBin(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const rl = createInterface({ input: child.stdout });
  const waiters: Array<() => void> = [];
  rl.on('line', (line) => {
    lines.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const line = async (pattern: RegExp): Promise<RegExpMatchArray> => {
    for (;;) {
      for (const seen of lines) {
        const match = pattern.exec(seen);
        if (match) return match;
      }
      if (child.exitCode !== null)
        throw new Error(`exited ${child.exitCode} without ${pattern}; stderr: ${stderr}`);
      await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited]);
    }
  };
  return { child, line, exited, stderr: () => stderr };
}

describe('fastpath-zookeeper CLI', () => {
  it('starts a server, prints its connect string, and cleans up on SIGTERM', async () => {
    const cli = runBin(['start', '--heap-mb', '128']);
    try {
      const [, connectString] = await within(cli.line(/^connectString=(\S+)$/), 30_000, 'the connect string');
      const [, pids, rootDir] = await within(
        cli.line(/pid ([\d, ]+), data in (\S+)\)/),
        5_000,
        'the human line',
      );
      expect(connectString).toMatch(/^127\.0\.0\.1:\d+$/);
      const port = Number(connectString!.split(':')[1]);
      expect(await fourLetterWord(port, 'ruok')).toBe('imok');
      const pid = Number(pids);
      expect(isAlive(pid)).toBe(true);
      expect(existsSync(rootDir!)).toBe(true);

      cli.child.kill('SIGTERM');
      expect(await within(cli.exited, 20_000, 'the CLI exit')).toBe(0);
      expect(isAlive(pid)).toBe(false);
      expect(existsSync(rootDir!)).toBe(false);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('prints usage and fails on a bad command line', async () => {
    const cli = runBin(['start', '--nodes', 'three']);
    expect(await within(cli.exited, 20_000, 'the CLI exit')).toBe(2);
    expect(cli.stderr()).toMatch(/--nodes expects a whole number/);
    expect(cli.stderr()).toMatch(/Usage: fastpath-zookeeper start/);
  });
});
