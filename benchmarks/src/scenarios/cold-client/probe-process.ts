// Runs one fresh probe process (a Node probe or a Java client) to its end and times it from spawn
// to exit, the span a user of a short-lived client process waits for.
import { spawn } from 'node:child_process';
import { BenchmarkProcessError, type ScenarioContext } from '../../harness/index.js';

const PROCESS_TIMEOUT_MS = 60_000;

export interface ProbeRun {
  stdout: string;
  wallMs: number;
}

/**
 * Spawns `file args`, with `COLD_CLIENT_PROBE_INPUT` set to `input` as JSON when given (Node
 * probes read it; `NODE_OPTIONS` is cleared so no loader of this process leaks into theirs).
 */
export function runProbeProcess(
  ctx: ScenarioContext<unknown>,
  file: string,
  args: readonly string[],
  input?: unknown,
): Promise<ProbeRun> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
    if (input !== undefined) env['COLD_CLIENT_PROBE_INPUT'] = JSON.stringify(input);
    const child = spawn(file, [...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4096)));
    const timer = setTimeout(() => child.kill('SIGKILL'), PROCESS_TIMEOUT_MS);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new BenchmarkProcessError(`could not start ${file}: ${err.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) {
        ctx.log(`probe ${file} ${args.join(' ')} failed: ${stderr}`);
        reject(
          new BenchmarkProcessError(
            `a probe process exited with ${String(code ?? signal)}: ${stderr.trim()}`,
          ),
        );
      } else resolve({ stdout, wallMs });
    });
  });
}
