import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  BenchmarkProcessError,
  mergeLatencies,
  runInChild,
  runInWorker,
  startChild,
  startWorker,
} from '../src/harness/index.js';
import type { FixtureInput } from './fixtures/echo-calls.js';

// Jest runs from the package folder; the fixture is TypeScript, loaded through tsx by the helpers.
const FIXTURE = path.resolve('test/fixtures/echo-calls.ts');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bench-procs-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('worker threads', () => {
  it('run a TypeScript module, pass workerData, and return its results', async () => {
    await using worker = startWorker<FixtureInput, unknown>(FIXTURE, { workerData: { id: 7 } });
    await worker.ready;
    await expect(
      worker.call({ op: 'echo', value: { n: 1, bytes: new Uint8Array([1, 2]) } }),
    ).resolves.toEqual({
      value: { n: 1, bytes: new Uint8Array([1, 2]) },
      workerData: { id: 7 },
    });
    await expect(worker.call({ op: 'info' })).resolves.toMatchObject({ isMainThread: false });
  });

  it('pass errors back with their code, and keep serving', async () => {
    await using worker = startWorker<FixtureInput, unknown>(FIXTURE);
    const failed = worker.call({ op: 'fail', message: 'no such key' });
    await expect(failed).rejects.toThrow(BenchmarkProcessError);
    await expect(failed).rejects.toThrow(/ERR_FIXTURE: no such key/);
    await expect(worker.call({ op: 'echo', value: 2 })).resolves.toMatchObject({ value: 2 });
  });

  it('merge latency histograms recorded in several threads', async () => {
    const encoded = await Promise.all([
      runInWorker<FixtureInput, string>(FIXTURE, { op: 'latency', samplesMs: [1, 2, 3] }),
      runInWorker<FixtureInput, string>(FIXTURE, { op: 'latency', samplesMs: [10] }),
    ]);
    const summary = mergeLatencies(encoded).summary();
    expect(summary.count).toBe(4);
    expect(summary.maxMs).toBeCloseTo(10, 1);
    expect(summary.minMs).toBeCloseTo(1, 2);
  });

  it('reject calls in flight and later when the thread exits', async () => {
    const worker = startWorker<FixtureInput, unknown>(FIXTURE);
    await expect(worker.call({ op: 'exit', code: 3 })).rejects.toThrow(/exited with code 3 before answering/);
    await expect(worker.call({ op: 'echo', value: 1 })).rejects.toThrow(BenchmarkProcessError);
    await worker.close();
  });
});

describe('child processes', () => {
  it('run a TypeScript module with node --import tsx --conditions development, with args, env and a log', async () => {
    const commands: string[] = [];
    const logFile = path.join(dir, 'child.log');
    const result = await runInChild<FixtureInput, unknown>(
      FIXTURE,
      { op: 'info' },
      { args: ['--port', '0'], env: { BENCH_FIXTURE: 'yes' }, logFile, onSpawn: (c) => commands.push(c) },
    );
    expect(result).toEqual({ argv: ['--port', '0'], env: 'yes', isMainThread: true });
    expect(commands).toHaveLength(1);
    expect(commands[0]).toContain(
      `${process.execPath} --import tsx --conditions development ${FIXTURE} --port 0`,
    );
    expect(readFileSync(logFile, 'utf8')).toContain('info asked');
  });

  it('deliver other IPC messages to waitForMessage', async () => {
    await using child = startChild<FixtureInput, unknown>(FIXTURE);
    const listening = child.waitForMessage<{ port: number }>(
      (m) => (m as { type?: string }).type === 'listening',
      20_000,
    );
    await expect(child.call({ op: 'notify', port: 4321 })).resolves.toBe('sent');
    await expect(listening).resolves.toEqual({ type: 'listening', port: 4321 });
  });

  it('reject a call when the process dies, quoting the end of its stderr', async () => {
    const child = startChild<FixtureInput, unknown>(FIXTURE);
    await child.ready;
    await expect(child.call({ op: 'exit', code: 4 })).rejects.toThrow(
      /exited with code 4 before answering[\s\S]*exiting with 4/,
    );
    await expect(child.exited).resolves.toEqual({ code: 4, signal: null });
    await child.close();
  });

  it('pass errors back, and exit cleanly on close', async () => {
    const child = startChild<FixtureInput, unknown>(FIXTURE);
    await expect(child.call({ op: 'fail', message: 'bad' })).rejects.toThrow(/ERR_FIXTURE: bad/);
    await child.close();
    await expect(child.exited).resolves.toEqual({ code: 0, signal: null });
  });
});
