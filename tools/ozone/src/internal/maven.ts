// Maven resolution for the fixture. A shared JVM-fixture workspace is planned to own this
// mechanism for every Maven-backed tool; until it exists, this is the one copy in tools/ozone.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** How one Maven run went. */
export interface MavenRun {
  readonly ok: boolean;
  readonly exitCode: number | null;
  /** Artifacts Maven reported downloaded, and their total size as Maven printed it. */
  readonly downloadedFiles: number;
  readonly downloadedBytes: number;
  readonly elapsedMs: number;
  /** The first artifact Maven said it could not find or read, if it named one. */
  readonly failedArtifact: string | undefined;
  /** The last lines of Maven's output (downloads left out). */
  readonly tail: string;
}

export interface MavenOptions {
  /** The folder holding pom.xml. */
  readonly cwd: string;
  /** `-Dmaven.repo.local`; `undefined` leaves Maven's own default (shared by every run on the machine). */
  readonly repoLocal: string | undefined;
  /** `-o`: use only what the local repository has. */
  readonly offline: boolean;
  /** Progress lines (every `progressEveryMs` while downloading, plus a summary). */
  readonly onProgress: (line: string) => void;
  readonly progressEveryMs: number;
  readonly mvnCommand: string;
}

const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const DOWNLOADED = /^\[INFO\] Downloaded from [^:]+: \S+ \(([\d.]+) ([kMG]?B)/;
const UNIT: Record<string, number> = { B: 1, kB: 1e3, MB: 1e6, GB: 1e9 };

/** Runs `mvn -B <args>` and summarises it; never throws for a Maven failure (see `ok`). */
export function runMaven(args: readonly string[], options: MavenOptions): Promise<MavenRun> {
  const fullArgs = ['-B', ...(options.offline ? ['-o'] : [])];
  if (options.repoLocal !== undefined) fullArgs.push(`-Dmaven.repo.local=${options.repoLocal}`);
  fullArgs.push(...args);
  const started = Date.now();
  let downloadedFiles = 0;
  let downloadedBytes = 0;
  let failedArtifact: string | undefined;
  const tail: string[] = [];
  let lastReport = started;

  return new Promise((resolve) => {
    const child = spawn(options.mvnCommand, fullArgs, {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MAVEN_OPTS: process.env['MAVEN_OPTS'] ?? '-Xmx512m' },
    });
    const onLine = (raw: string): void => {
      // Maven colours its output even in batch mode on some terminals.
      const line = raw.replace(ANSI_COLOUR, '');
      const downloaded = DOWNLOADED.exec(line);
      if (downloaded !== null) {
        downloadedFiles++;
        downloadedBytes += Number(downloaded[1]) * (UNIT[downloaded[2] as string] ?? 1);
        const now = Date.now();
        if (now - lastReport >= options.progressEveryMs) {
          lastReport = now;
          options.onProgress(
            `maven: ${downloadedFiles} files, ${(downloadedBytes / 1e6).toFixed(1)} MB downloaded, ${Math.round((now - started) / 1000)} s`,
          );
        }
        return;
      }
      if (line.startsWith('[INFO] Downloading from ')) return;
      failedArtifact ??= missingArtifact(line);
      tail.push(line);
      if (tail.length > 40) tail.shift();
    };
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    const finish = (exitCode: number | null): void =>
      resolve({
        ok: exitCode === 0,
        exitCode,
        downloadedFiles,
        downloadedBytes,
        elapsedMs: Date.now() - started,
        failedArtifact,
        tail: tail.join('\n'),
      });
    child.on('error', (err) => {
      tail.push(`cannot run ${options.mvnCommand}: ${err.message}`);
      finish(null);
    });
    child.on('close', (code) => finish(code));
  });
}

// The coordinate in Maven's "could not find/resolve/read" sentences, e.g.
// "Could not find artifact org.apache.ozone:hdds-hadoop-dependency-client:pom:2.2.0 in central"
// or "org.apache.ozone:x:pom:2.2.0 was not found in https://... during a previous attempt".
const MISSING = [
  /Could not find artifact (\S+)/,
  /Failure to find (\S+)/,
  /(\S+:\S+:\S+) was not found in /,
  /Could not transfer artifact (\S+)/,
  /Cannot access \S+ in offline mode and the artifact (\S+) has not been downloaded/,
  /The following artifacts could not be resolved: ([^,:\s]+:[^,\s]+)/,
  /Failed to read artifact descriptor for (\S+)/,
];

export function missingArtifact(line: string): string | undefined {
  if (!line.startsWith('[ERROR]')) return undefined;
  for (const pattern of MISSING) {
    const m = pattern.exec(line);
    if (m !== null) return (m[1] as string).replace(/[:,]$/, '');
  }
  return undefined;
}
