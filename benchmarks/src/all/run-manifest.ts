import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BenchmarkInputError } from '../harness/index.js';
import type { MachineInfo } from './machine-info.js';

/** How one scenario of a run of `all` ended (or that it has not yet). */
export type ScenarioRunStatus = 'pending' | 'running' | 'complete' | 'failed' | 'interrupted' | 'not run';

export interface ScenarioRunRecord {
  name: string;
  title: string;
  /** The source document's key, or `—`. */
  source: string;
  status: ScenarioRunStatus;
  /** Its folder, relative to the run's folder. */
  dir: string;
  /** The command line of its process. */
  command: string | null;
  startedAt: string | null;
  tookMs: number | null;
  /**
   * The machine's load averages (1 / 5 / 15 min) when the scenario started and ended: on a shared
   * machine what else ran beside it. Absent in runs recorded before it existed.
   */
  loadAverage?: { start: number[]; end: number[] | null } | null;
  /**
   * The Node version the scenario's process ran on, which took its figures (the Java rows ran on
   * their JVM): the ozone and KMS ratios move with Node's HTTP/2 and V8. Absent in runs recorded
   * before it existed.
   */
  node?: string | null;
  exitCode: number | null;
  /** Why it failed, in one paragraph (the end of its stderr, or the signal). */
  error: string | null;
  /** Planned cases and estimated time, from its flags. */
  cases: number;
  estimateMs: number;
}

/** `run.json` at the top of a run of `all`: rewritten after every step, so a crash leaves it valid. */
export interface RunManifest {
  kind: 'fastpath-benchmarks-all';
  /** The command line as typed (`npx nx run benchmarks:all -- …`), and as this process ran. */
  command: string;
  processCommand: string;
  cwd: string;
  quick: boolean;
  /** `--only`, or null for every registered scenario. */
  only: string[] | null;
  startedAt: string;
  finishedAt: string | null;
  /** `running` until the end; `incomplete` when a scenario did not complete or the run was cut. */
  status: 'running' | 'complete' | 'incomplete';
  /** Why the run stopped early (interrupted, or the orchestrator's own error). */
  stopped: string | null;
  machine: MachineInfo;
  scenarios: ScenarioRunRecord[];
}

export const MANIFEST_FILE = 'run.json';

/** Writes `run.json` atomically (temporary file, then rename). */
export function writeManifest(runDir: string, manifest: RunManifest): void {
  mkdirSync(runDir, { recursive: true });
  const target = path.join(runDir, MANIFEST_FILE);
  const temp = path.join(runDir, `.${MANIFEST_FILE}.${process.pid}.tmp`);
  writeFileSync(temp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(temp, target);
}

/** Reads a run's `run.json`; throws `BenchmarkInputError` when the folder is not a run of `all`. */
export function readManifest(runDir: string): RunManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path.join(runDir, MANIFEST_FILE), 'utf8'));
  } catch (err) {
    throw new BenchmarkInputError(
      `${runDir} is not a results folder of benchmarks:all (no readable ${MANIFEST_FILE}: ${(err as Error).message})`,
    );
  }
  const manifest = parsed as Partial<RunManifest> | null;
  if (manifest?.kind !== 'fastpath-benchmarks-all' || !Array.isArray(manifest.scenarios)) {
    throw new BenchmarkInputError(`${runDir}/${MANIFEST_FILE} is not the manifest of a benchmarks:all run`);
  }
  return manifest as RunManifest;
}
