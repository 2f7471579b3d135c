import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { compileJava, locateJava, resolveMavenArtifacts } from '@fastpath/jvm-fixture';
import { cacheDir, fixtureDir } from './internal/fixture-paths.js';
import { fetchParentlessJars } from './internal/parentless-jars.js';

/** What a cluster JVM needs: the resolved jars, the compiled launcher and the logging config. */
export interface OzoneJars {
  /** Ozone's version as pom.xml names it, e.g. `2.2.0`. */
  readonly ozoneVersion: string;
  /** `-cp` value for the launcher JVM: the launcher's classes, then every jar. */
  readonly classpath: string;
  /** reload4j configuration sending Ozone's logging to stderr. */
  readonly log4jConfig: string;
  readonly javaPath: string;
  /** How this call got there (what it had to do, and how long it took). */
  readonly report: PrepareReport;
}

export interface PrepareReport {
  /** `none`: the cache was complete and Maven did not run. */
  readonly maven: 'online' | 'offline' | 'none';
  /** Artifacts Maven downloaded during this call, and their total size in bytes. */
  readonly downloads: number;
  readonly downloadedBytes: number;
  readonly jars: number;
  readonly jarBytes: number;
  /** Whether `javac` ran (false: the launcher was up to date). */
  readonly compiled: boolean;
  readonly durationMs: number;
}

export interface PrepareOzoneJarsOptions {
  /** Where progress goes (the first resolution downloads a few hundred MB). Default: stderr. */
  onProgress?: (line: string) => void;
}

/**
 * Makes sure Ozone's jars are resolved into the tool's git-ignored `.cache` folder and the
 * launcher is compiled, doing only what changed since the last call (no Maven run at all once the
 * cache matches pom.xml). Maven's local repository is `FASTPATH_MAVEN_REPO_LOCAL` when set, else
 * Maven's own default.
 *
 * @throws MavenResolutionError (from @fastpath/jvm-fixture) naming the artifact Maven could not get
 */
export async function prepareOzoneJars(options: PrepareOzoneJarsOptions = {}): Promise<OzoneJars> {
  const started = Date.now();
  const onProgress =
    options.onProgress ?? ((line: string) => process.stderr.write(`[ozone-fixture] ${line}\n`));
  const toolDir = fixtureDir();
  const cache = cacheDir();
  const pom = await readFile(join(toolDir, 'pom.xml'), 'utf8');
  const ozoneVersion = /<ozone\.version>([^<]+)<\/ozone\.version>/.exec(pom)?.[1] ?? 'unknown';

  const tree = await resolveMavenArtifacts({
    pomDir: toolDir,
    cacheDir: join(cache, 'maven'),
    copyJars: true,
    onProgress,
  });
  const parentless = await fetchParentlessJars(join(cache, 'parentless'), ozoneVersion, onProgress);
  const jars = [...tree.classpath, ...parentless.jars];
  const launcher = await compileJava({
    sourceDir: join(toolDir, 'java'),
    outDir: join(cache, 'classes'),
    classpath: jars,
  });
  const { javaPath } = await locateJava({ purpose: 'the Ozone cluster needs Java 17' });

  let parentlessBytes = 0;
  for (const jar of parentless.jars) parentlessBytes += (await stat(jar)).size;
  return {
    ozoneVersion,
    classpath: [launcher.classesDir, ...jars].join(':'),
    log4jConfig: join(toolDir, 'java', 'log4j.properties'),
    javaPath,
    report: {
      maven: parentless.fetched && tree.maven === 'none' ? 'online' : tree.maven,
      downloads: tree.downloads,
      downloadedBytes: tree.downloadedBytes,
      jars: jars.length,
      jarBytes: tree.classpathBytes + parentlessBytes,
      compiled: launcher.compiled,
      durationMs: Date.now() - started,
    },
  };
}
