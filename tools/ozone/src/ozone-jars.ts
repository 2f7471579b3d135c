import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkInteger } from '@fastpath/core';
import { readEnvironment } from './internal/environment.js';
import { cacheDir, fixtureDir } from './internal/fixture-paths.js';
import { runMaven } from './internal/maven.js';
import { OzoneJarsUnavailableError, OzoneLauncherBuildError } from './ozone-fixture-errors.js';

/** What a cluster JVM needs: the resolved jars, the compiled launcher and the logging config. */
export interface OzoneJars {
  /** Ozone's version as the pom names it, e.g. `2.2.0`. */
  readonly ozoneVersion: string;
  /** Folder of the resolved jars (Ozone's and their dependencies). */
  readonly libDir: string;
  /** The compiled launcher classes. */
  readonly classesDir: string;
  /** `-cp` value for the launcher JVM. */
  readonly classpath: string;
  /** reload4j configuration sending Ozone's logging to stderr. */
  readonly log4jConfig: string;
  readonly javaPath: string;
  /** How this call got there (what it had to do, and how long it took). */
  readonly report: PrepareReport;
}

export interface PrepareReport {
  /** `cached`: nothing to resolve; `offline`: Maven's local repository had everything; `downloaded`. */
  readonly resolution: 'cached' | 'offline' | 'downloaded';
  readonly mavenMs: number;
  readonly downloadedFiles: number;
  readonly downloadedBytes: number;
  readonly libFiles: number;
  readonly libBytes: number;
  readonly compiled: boolean;
  readonly totalMs: number;
}

export interface PrepareOzoneJarsOptions {
  /** Where progress goes (the first resolution downloads a few hundred MB). Default: stderr. */
  onProgress?: (line: string) => void;
  /** Interval between download progress lines. */
  progressEveryMs?: number;
}

export const DEFAULT_PREPARE_OZONE_JARS_OPTIONS: Readonly<Required<PrepareOzoneJarsOptions>> = Object.freeze({
  onProgress: (line: string) => process.stderr.write(`${line}\n`),
  progressEveryMs: 5_000,
});

interface Marker {
  pomSha256: string;
  launcherSha256: string;
  libFiles: number;
  libBytes: number;
}

const MARKER = 'prepared.json';

/**
 * Makes sure the Ozone jars are resolved into the tool's git-ignored `.cache/lib` and the launcher
 * is compiled into `.cache/classes`, doing only what changed since the last call: Maven runs when
 * pom.xml changed (offline first, so a machine whose local repository already has the jars
 * downloads nothing), javac when the launcher sources or the jar set changed.
 *
 * Maven's local repository is `FASTPATH_MAVEN_REPO_LOCAL` when set, else Maven's own default.
 * Throws {@link OzoneJarsUnavailableError} naming the artifact Maven could not get.
 */
export async function prepareOzoneJars(options: PrepareOzoneJarsOptions = {}): Promise<OzoneJars> {
  const onProgress = options.onProgress ?? DEFAULT_PREPARE_OZONE_JARS_OPTIONS.onProgress;
  const progressEveryMs = checkInteger(
    'progressEveryMs',
    options.progressEveryMs ?? DEFAULT_PREPARE_OZONE_JARS_OPTIONS.progressEveryMs,
    1,
  );
  const started = Date.now();
  const env = readEnvironment();
  const toolDir = fixtureDir();
  const cache = cacheDir();
  const libDir = join(cache, 'lib');
  const classesDir = join(cache, 'classes');
  const pom = await readFile(join(toolDir, 'pom.xml'), 'utf8');
  const ozoneVersion = /<ozone\.version>([^<]+)<\/ozone\.version>/.exec(pom)?.[1] ?? 'unknown';
  const pomSha256 = sha256(pom);
  const previous = await readMarker(join(cache, MARKER));

  let resolution: PrepareReport['resolution'] = 'cached';
  let mavenMs = 0;
  let downloadedFiles = 0;
  let downloadedBytes = 0;
  let lib = await folderSize(libDir);
  if (previous?.pomSha256 !== pomSha256 || lib.files !== previous.libFiles || lib.files === 0) {
    await rm(libDir, { recursive: true, force: true });
    await mkdir(cache, { recursive: true });
    const maven = {
      cwd: toolDir,
      repoLocal: env.mavenRepoLocal,
      onProgress,
      progressEveryMs,
      mvnCommand: 'mvn',
    };
    const goal = ['generate-resources', `-Dfixture.lib=${libDir}`];
    let run = await runMaven(goal, { ...maven, offline: true, onProgress: () => undefined });
    resolution = 'offline';
    if (!run.ok) {
      onProgress(
        `ozone-fixture: resolving Apache Ozone ${ozoneVersion} with Maven (the first time downloads a few hundred MB)`,
      );
      await rm(libDir, { recursive: true, force: true });
      run = await runMaven(goal, { ...maven, offline: false });
      resolution = 'downloaded';
    }
    mavenMs = run.elapsedMs;
    downloadedFiles = run.downloadedFiles;
    downloadedBytes = run.downloadedBytes;
    if (!run.ok) {
      const what = run.failedArtifact === undefined ? 'see the end of its output' : run.failedArtifact;
      throw new OzoneJarsUnavailableError(
        `Maven could not resolve Apache Ozone ${ozoneVersion} (${what}); end of its output:\n${run.tail}`,
        run.failedArtifact,
        run.tail,
      );
    }
    lib = await folderSize(libDir);
    onProgress(
      `ozone-fixture: ${lib.files} jars (${(lib.bytes / 1e6).toFixed(1)} MB) in ${libDir}; Maven took ` +
        `${(run.elapsedMs / 1000).toFixed(1)} s, downloaded ${run.downloadedFiles} files (${(run.downloadedBytes / 1e6).toFixed(1)} MB)`,
    );
  }

  const javaPath = env.javaHome === undefined ? 'java' : join(env.javaHome, 'bin', 'java');
  const javacPath = env.javaHome === undefined ? 'javac' : join(env.javaHome, 'bin', 'javac');
  const javaDir = join(toolDir, 'java');
  const sources = (await readdir(join(javaDir, 'fastpath', 'ozonefixture')))
    .filter((name) => name.endsWith('.java'))
    .sort()
    .map((name) => join(javaDir, 'fastpath', 'ozonefixture', name));
  const launcherSha256 = sha256(
    [
      ...(await Promise.all(sources.map((file) => readFile(file, 'utf8')))),
      (await readdir(libDir)).sort().join('\n'),
    ].join('\0'),
  );
  const compiled = previous?.launcherSha256 !== launcherSha256 || !(await exists(classesDir));
  if (compiled) {
    await rm(classesDir, { recursive: true, force: true });
    await compile(javacPath, classesDir, `${libDir}/*`, sources);
  }

  const marker: Marker = { pomSha256, launcherSha256, libFiles: lib.files, libBytes: lib.bytes };
  await writeFile(join(cache, `${MARKER}.tmp`), `${JSON.stringify(marker, null, 2)}\n`);
  await rename(join(cache, `${MARKER}.tmp`), join(cache, MARKER));

  return {
    ozoneVersion,
    libDir,
    classesDir,
    classpath: `${classesDir}:${libDir}/*`,
    log4jConfig: join(javaDir, 'log4j.properties'),
    javaPath,
    report: {
      resolution,
      mavenMs,
      downloadedFiles,
      downloadedBytes,
      libFiles: lib.files,
      libBytes: lib.bytes,
      compiled,
      totalMs: Date.now() - started,
    },
  };
}

function compile(
  javac: string,
  outDir: string,
  classpath: string,
  sources: readonly string[],
): Promise<void> {
  return new Promise((resolve, reject) => {
    const output: Buffer[] = [];
    const child = spawn(javac, ['-nowarn', '--release', '17', '-d', outDir, '-cp', classpath, ...sources], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', (err) =>
      reject(new OzoneLauncherBuildError(`cannot run ${javac} (a JDK 17 is needed): ${err.message}`)),
    );
    child.on('close', (code) => {
      if (code === 0) resolve();
      else
        reject(
          new OzoneLauncherBuildError(
            `javac failed (exit ${String(code)}):\n${Buffer.concat(output).toString('utf8')}`,
          ),
        );
    });
  });
}

async function readMarker(file: string): Promise<Marker | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Marker;
  } catch {
    return undefined;
  }
}

async function folderSize(dir: string): Promise<{ files: number; bytes: number }> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return { files: 0, bytes: 0 };
  }
  const sizes = await Promise.all(names.map(async (name) => (await stat(join(dir, name))).size));
  return { files: names.length, bytes: sizes.reduce((a, b) => a + b, 0) };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
