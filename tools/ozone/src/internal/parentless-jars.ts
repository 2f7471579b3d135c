import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  findExecutable,
  MavenNotFoundError,
  MavenResolutionError,
  readJvmEnvironment,
  runProcess,
} from '@fastpath/jvm-fixture';

/**
 * The Ozone jars whose POMs Maven cannot read: their parent,
 * org.apache.ozone:hdds-hadoop-dependency-client:pom, is not on Maven Central (see pom.xml).
 * Their own dependencies are listed in pom.xml; the jars themselves are fetched here.
 */
export const PARENTLESS_ARTIFACTS: ReadonlyArray<{ artifactId: string; classifier?: string }> = Object.freeze(
  [
    { artifactId: 'hdds-common' },
    { artifactId: 'hdds-common', classifier: 'tests' }, // MiniOzoneCluster depends on its test jar
    { artifactId: 'hdds-client' },
    { artifactId: 'hdds-cli-common' },
    { artifactId: 'hdds-erasurecode' },
    { artifactId: 'ozone-common' },
    { artifactId: 'ozone-client' },
  ],
);

// maven-dependency-plugin 2.8's copy resolves the jar alone; 3.x reads the jar's POM first and so
// fails on the missing parent.
const COPY_GOAL = 'org.apache.maven.plugins:maven-dependency-plugin:2.8:copy';

export interface ParentlessJars {
  readonly jars: readonly string[];
  /** Whether Maven ran (false: every jar was already there). */
  readonly fetched: boolean;
}

/**
 * Copies {@link PARENTLESS_ARTIFACTS} of `ozoneVersion` into `libDir` with Maven (same local
 * repository as the rest of the resolution), one `copy` per jar, only for jars not yet there.
 *
 * @throws MavenResolutionError naming the jar Maven did not deliver
 */
export async function fetchParentlessJars(
  toolDir: string,
  libDir: string,
  ozoneVersion: string,
  onProgress: (line: string) => void,
): Promise<ParentlessJars> {
  const env = readJvmEnvironment();
  const wanted = PARENTLESS_ARTIFACTS.map(({ artifactId, classifier }) => ({
    coordinates: `org.apache.ozone:${artifactId}:${ozoneVersion}:jar${classifier === undefined ? '' : `:${classifier}`}`,
    file: join(
      libDir,
      `${artifactId}-${ozoneVersion}${classifier === undefined ? '' : `-${classifier}`}.jar`,
    ),
  }));
  const missing = [];
  for (const jar of wanted) if (!(await isFile(jar.file))) missing.push(jar);
  if (missing.length === 0) return { jars: wanted.map((w) => w.file), fetched: false };

  const mvn = await findExecutable('mvn', env.path);
  if (mvn === undefined) {
    throw new MavenNotFoundError(
      'no "mvn" on the PATH: install Maven 3.6 or newer (as root: apt-get install -y maven)',
    );
  }
  await mkdir(libDir, { recursive: true });
  for (const jar of missing) {
    onProgress(`fetching ${jar.coordinates} (its POM's parent is not on Maven Central)`);
    const result = await runProcess(
      mvn,
      [
        '-B',
        ...(env.mavenRepoLocal === undefined ? [] : [`-Dmaven.repo.local=${env.mavenRepoLocal}`]),
        '-f',
        join(toolDir, 'pom.xml'),
        COPY_GOAL,
        `-Dartifact=${jar.coordinates}`,
        `-DoutputDirectory=${libDir}`,
      ],
      { cwd: toolDir, timeoutMs: 600_000 },
    );
    if (result.code !== 0 || !(await isFile(jar.file))) {
      await rm(jar.file, { force: true });
      const tail = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-30).join('\n');
      throw new MavenResolutionError(
        `Maven could not fetch ${jar.coordinates} (mvn exit ${String(result.code)})`,
        jar.coordinates,
        tail,
      );
    }
  }
  return { jars: wanted.map((w) => w.file), fetched: true };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
