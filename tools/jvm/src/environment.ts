// The one place this package reads environment variables, so every setting that can come from
// the environment is visible here.

/** The environment settings the JVM helpers honour. */
export interface JvmEnvironment {
  /** `JAVA_HOME`: a JDK/JRE whose `bin/java` (and `bin/javac`) are used. */
  readonly javaHome: string | undefined;
  /** `FASTPATH_MAVEN_REPO_LOCAL`: Maven's local repository; unset = Maven's own default. */
  readonly mavenRepoLocal: string | undefined;
  /** `PATH`, searched for `java`, `javac` and `mvn`. */
  readonly path: string;
}

export function readJvmEnvironment(env: NodeJS.ProcessEnv = process.env): JvmEnvironment {
  return {
    javaHome: nonEmpty(env['JAVA_HOME']),
    mavenRepoLocal: nonEmpty(env['FASTPATH_MAVEN_REPO_LOCAL']),
    path: env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
