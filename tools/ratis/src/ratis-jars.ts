import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileJava, locateJava, resolveMavenArtifacts } from '@fastpath/jvm-fixture';
import { cacheDir, fixtureDir } from './internal/fixture-paths.js';

/** What a JVM of the fixture (or a Java program beside it) needs to run Ratis. */
export interface RatisJars {
  /** `ratis.version` of pom.xml (3.2.1). */
  readonly ratisVersion: string;
  /** Every resolved jar (Ratis, its shaded gRPC/protobuf, metrics, slf4j with its binding). */
  readonly jars: readonly string[];
  /** `-cp` value for the peer JVMs: the launcher's classes, then every jar. */
  readonly classpath: string;
  readonly javaPath: string;
  /** How this call got there. */
  readonly report: RatisJarsReport;
}

export interface RatisJarsReport {
  /** `none`: the cache was complete and Maven did not run. */
  readonly maven: 'online' | 'offline' | 'none';
  /** Artifacts Maven downloaded during this call, and their total size in bytes. */
  readonly downloads: number;
  readonly downloadedBytes: number;
  readonly jarCount: number;
  readonly jarBytes: number;
  /** Whether `javac` ran (false: the launcher was up to date). */
  readonly compiled: boolean;
  readonly durationMs: number;
}

export interface PrepareRatisJarsOptions {
  /** Where Maven's progress goes. Default: stderr, prefixed `[ratis-fixture]`. */
  onProgress?: (line: string) => void;
}

/**
 * Resolves Apache Ratis's jars (pom.xml) from Maven Central into the tool's git-ignored `.cache`
 * folder and compiles the launcher (`java/`), doing only what changed since the last call: once
 * the cache matches pom.xml, Maven does not run at all.
 *
 * @throws MavenResolutionError (from @fastpath/jvm-fixture) naming the artifact Maven could not get
 */
export async function prepareRatisJars(options: PrepareRatisJarsOptions = {}): Promise<RatisJars> {
  const started = Date.now();
  const onProgress =
    options.onProgress ?? ((line: string) => process.stderr.write(`[ratis-fixture] ${line}\n`));
  const toolDir = fixtureDir();
  const pom = await readFile(join(toolDir, 'pom.xml'), 'utf8');
  const ratisVersion = /<ratis\.version>([^<]+)<\/ratis\.version>/.exec(pom)?.[1] ?? 'unknown';
  const tree = await resolveMavenArtifacts({
    pomDir: toolDir,
    cacheDir: join(cacheDir(), 'maven'),
    copyJars: true,
    onProgress,
  });
  const launcher = await compileJava({
    sourceDir: join(toolDir, 'java'),
    outDir: join(cacheDir(), 'classes'),
    classpath: tree.classpath,
  });
  const { javaPath } = await locateJava({ purpose: 'the Ratis fixture needs Java 17' });
  return {
    ratisVersion,
    jars: tree.classpath,
    classpath: [launcher.classesDir, ...tree.classpath].join(':'),
    javaPath,
    report: {
      maven: tree.maven,
      downloads: tree.downloads,
      downloadedBytes: tree.downloadedBytes,
      jarCount: tree.classpath.length,
      jarBytes: tree.classpathBytes,
      compiled: launcher.compiled,
      durationMs: Date.now() - started,
    },
  };
}
