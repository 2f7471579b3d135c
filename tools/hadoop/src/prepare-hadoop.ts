import { join } from 'node:path';
import { compileJava, locateJava, resolveMavenArtifacts, type MavenResolution } from '@fastpath/jvm-fixture';
import { cacheDir, toolDir } from './internal/tool-paths.js';

/** What runs Hadoop here: java, Hadoop's class path and the compiled client driver. */
export interface HadoopInstallation {
  readonly javaPath: string;
  /** Hadoop's jars (hadoop-kms, hadoop-common and their dependencies), Maven's order. */
  readonly classpath: readonly string[];
  /** The folder of the compiled `dev.fastpath.hadoop.HadoopClientDriver`. */
  readonly driverClassesDir: string;
  /** Version of the `hadoop-common` jar on the class path, e.g. `3.4.2`. */
  readonly hadoopVersion: string;
  /** The jar names and versions of the Hadoop artifacts loaded (for reports). */
  readonly hadoopJars: readonly string[];
  /** How the jars were obtained by this process (Maven's downloads and time). */
  readonly resolution: MavenResolution;
}

/** Options of {@link prepareHadoop}. */
export interface PrepareHadoopOptions {
  /** Passed to `resolveMavenArtifacts`. Default `'auto'`: no Maven run once the cache is complete. */
  offline?: boolean | 'auto';
  /** Progress lines of the Maven run. Default: stderr. */
  onProgress?: (line: string) => void;
}

let prepared: Promise<HadoopInstallation> | undefined;

/**
 * Resolves Apache Hadoop's KMS and common jars (see `pom.xml`) with Maven into the tool's
 * `.cache/` and compiles the client driver against them, once per process.
 *
 * @throws MavenResolutionError naming the first artifact Maven could not resolve
 * @throws JavaNotFoundError when there is no JDK
 */
export function prepareHadoop(options: PrepareHadoopOptions = {}): Promise<HadoopInstallation> {
  prepared ??= prepare(options).catch((err: unknown) => {
    prepared = undefined;
    throw err;
  });
  return prepared;
}

async function prepare(options: PrepareHadoopOptions): Promise<HadoopInstallation> {
  const dir = toolDir();
  const resolution = await resolveMavenArtifacts({
    pomDir: dir,
    cacheDir: join(cacheDir(), 'maven'),
    ...(options.offline === undefined ? {} : { offline: options.offline }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  const { javaPath } = await locateJava({ purpose: 'the Hadoop KMS needs Java 11 or newer' });
  const { classesDir } = await compileJava({
    sourceDir: join(dir, 'java'),
    outDir: join(cacheDir(), 'classes'),
    classpath: resolution.classpath,
  });
  const hadoopJars = resolution.classpath
    .map((jar) => jar.split('/').pop() ?? jar)
    .filter((name) => /^hadoop-(common|kms|auth)-\d/.test(name));
  const common = hadoopJars.find((name) => name.startsWith('hadoop-common-'));
  const hadoopVersion = common?.replace(/^hadoop-common-/, '').replace(/\.jar$/, '') ?? 'unknown';
  return Object.freeze({
    javaPath,
    classpath: resolution.classpath,
    driverClassesDir: classesDir,
    hadoopVersion,
    hadoopJars: Object.freeze(hadoopJars),
    resolution,
  });
}
