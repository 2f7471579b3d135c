import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { captureEnvironment, type Environment } from '../harness/index.js';
import type { UsedTool } from './scenario-summary.js';

/** The machine and the versions of what the run used, for the top of the combined report. */
export interface MachineInfo extends Environment {
  /** `java -version`'s version string; null when no scenario of the run used Java or none is found. */
  java: string | null;
  zookeeper: string | null;
  hadoop: string | null;
  ozone: string | null;
}

function run(command: string, args: readonly string[]): string | null {
  try {
    // java -version prints on stderr; both streams are read.
    return execFileSync(command, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20_000,
    });
  } catch (err) {
    const e = err as { stderr?: unknown };
    return typeof e.stderr === 'string' && e.stderr !== '' ? e.stderr : null;
  }
}

/** `openjdk version "17.0.15" 2025-04-15` plus the runtime line → `17.0.15 (OpenJDK …)`. */
export function parseJavaVersion(text: string): string | null {
  const version = /version "([^"]+)"/.exec(text)?.[1];
  if (!version) return null;
  const runtime = text.split('\n')[1]?.trim();
  return runtime ? `${version} (${runtime})` : version;
}

/** The version property of a tool's Maven POM, e.g. `<hadoop.version>3.4.2</hadoop.version>`. */
export function pomProperty(pom: string, property: string): string | null {
  const escaped = property.replace(/\./g, '\\.');
  return new RegExp(`<${escaped}>\\s*([^<\\s]+)\\s*</${escaped}>`).exec(pom)?.[1] ?? null;
}

function readPomProperty(file: string, property: string): string | null {
  try {
    return pomProperty(readFileSync(file, 'utf8'), property);
  } catch {
    return null;
  }
}

function zooKeeperVersion(): string | null {
  const home = process.env.ZOOKEEPER_HOME;
  if (home) return `${path.basename(home)} (ZOOKEEPER_HOME)`;
  const debian = run('dpkg-query', ['-W', '-f', '${Version}', 'zookeeper'])?.trim();
  return debian ? `${debian} (Debian package)` : null;
}

/**
 * Captures the machine, Node and commit (as every scenario does), plus the versions of Java,
 * ZooKeeper, Hadoop and Ozone when a scenario of the run uses them. Hadoop's and Ozone's versions
 * are the ones the repository's fixtures resolve from Maven Central (their POMs).
 */
export function captureMachineInfo(options: {
  /** The repository root. */
  repoDir: string;
  uses: ReadonlySet<UsedTool>;
  now?: () => Date;
}): MachineInfo {
  const env = captureEnvironment({ cwd: options.repoDir, ...(options.now ? { now: options.now } : {}) });
  const javaUsed = options.uses.has('java') || options.uses.has('hadoop') || options.uses.has('ozone');
  return {
    ...env,
    java: javaUsed ? parseJavaVersion(run('java', ['-version']) ?? '') : null,
    zookeeper: options.uses.has('zookeeper') ? zooKeeperVersion() : null,
    hadoop: options.uses.has('hadoop')
      ? readPomProperty(path.join(options.repoDir, 'tools/hadoop/pom.xml'), 'hadoop.version')
      : null,
    ozone: options.uses.has('ozone')
      ? readPomProperty(path.join(options.repoDir, 'tools/ozone/pom.xml'), 'ozone.version')
      : null,
  };
}

/** The machine table: the environment's rows, then the tools the run used. */
export function machineTable(machine: MachineInfo): string[][] {
  const rows: string[][] = [
    ['CPU', `${machine.cpuModel} × ${machine.cores}`],
    [
      'memory',
      `${(machine.totalMemoryBytes / 1024 ** 3).toFixed(1)} GiB (${(machine.freeMemoryBytes / 1024 ** 3).toFixed(1)} GiB free at the start)`,
    ],
    [
      'load average at the start',
      `${machine.loadAverage.map((l) => l.toFixed(2)).join(' / ')} (1 / 5 / 15 min)`,
    ],
    ['OS', `${machine.platform} ${machine.osRelease} ${machine.arch}`],
    ['Node', `${machine.node} (V8 ${machine.v8})`],
  ];
  if (machine.java) rows.push(['Java', machine.java]);
  if (machine.zookeeper) rows.push(['ZooKeeper', machine.zookeeper]);
  if (machine.hadoop) rows.push(['Hadoop', machine.hadoop]);
  if (machine.ozone) rows.push(['Ozone', machine.ozone]);
  return rows;
}
