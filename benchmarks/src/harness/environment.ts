import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { markdownTable } from './markdown-table.js';

/** The machine and code a run measured: written to every results folder and report. */
export interface Environment {
  capturedAt: string;
  node: string;
  v8: string;
  platform: string;
  osRelease: string;
  arch: string;
  cpuModel: string;
  /** Logical CPUs the process may use. */
  cores: number;
  totalMemoryBytes: number;
  freeMemoryBytes: number;
  /** 1, 5 and 15 minute load averages when the run started: a loaded machine measures low. */
  loadAverage: [number, number, number];
  /** `git rev-parse HEAD`, or `'unknown'` outside a work tree. */
  gitCommit: string;
  /** Whether the work tree had uncommitted changes (`undefined` when unknown). */
  gitDirty?: boolean;
}

function git(cwd: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Captures the environment of a run.
 *
 * @example
 * ```ts
 * const env = captureEnvironment({ cwd: process.cwd() });
 * console.log(`${env.cpuModel} × ${env.cores}, Node ${env.node}, commit ${env.gitCommit}`);
 * ```
 */
export function captureEnvironment(options: { cwd: string; now?: () => Date }): Environment {
  const cpus = os.cpus();
  const [l1 = 0, l5 = 0, l15 = 0] = os.loadavg();
  const status = git(options.cwd, ['status', '--porcelain', '--untracked-files=no']);
  const env: Environment = {
    capturedAt: (options.now?.() ?? new Date()).toISOString(),
    node: process.version,
    v8: process.versions.v8,
    platform: process.platform,
    osRelease: os.release(),
    arch: process.arch,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    totalMemoryBytes: os.totalmem(),
    freeMemoryBytes: os.freemem(),
    loadAverage: [l1, l5, l15],
    gitCommit: git(options.cwd, ['rev-parse', 'HEAD']) ?? 'unknown',
  };
  if (status !== undefined) env.gitDirty = status.length > 0;
  return env;
}

const GIB = 1024 ** 3;

/** The environment as a two-column Markdown table. */
export function environmentMarkdown(env: Environment): string {
  const commit = `${env.gitCommit.slice(0, 12)}${env.gitDirty ? ' (uncommitted changes)' : ''}`;
  return markdownTable(
    ['item', 'value'],
    [
      ['CPU', `${env.cpuModel} × ${env.cores}`],
      [
        'memory',
        `${(env.totalMemoryBytes / GIB).toFixed(1)} GiB (${(env.freeMemoryBytes / GIB).toFixed(1)} GiB free)`,
      ],
      ['load average', env.loadAverage.map((l) => l.toFixed(2)).join(' / ') + ' (1 / 5 / 15 min)'],
      ['Node', `${env.node} (V8 ${env.v8})`],
      ['OS', `${env.platform} ${env.osRelease} ${env.arch}`],
      ['commit', commit],
      ['captured', env.capturedAt],
    ],
  );
}
