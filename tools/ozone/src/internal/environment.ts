// The one place this package reads environment variables.

export interface FixtureEnvironment {
  /** `FASTPATH_MAVEN_REPO_LOCAL`: Maven's local repository; unset = Maven's own default. */
  readonly mavenRepoLocal: string | undefined;
  /** `JAVA_HOME`: the JDK whose `bin/java` and `bin/javac` are used; else the PATH. */
  readonly javaHome: string | undefined;
}

export function readEnvironment(env: NodeJS.ProcessEnv = process.env): FixtureEnvironment {
  return {
    mavenRepoLocal: nonEmpty(env['FASTPATH_MAVEN_REPO_LOCAL']),
    javaHome: nonEmpty(env['JAVA_HOME']),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
