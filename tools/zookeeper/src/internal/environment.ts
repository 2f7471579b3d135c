// The one place this package reads environment variables, so every setting that can come from
// the environment is visible here.

/** The environment settings the fixture honours. */
export interface FixtureEnvironment {
  /** `ZOOKEEPER_HOME`: an unpacked Apache ZooKeeper release (its `lib/` and `conf/`). */
  readonly zookeeperHome: string | undefined;
}

export function readEnvironment(env: NodeJS.ProcessEnv = process.env): FixtureEnvironment {
  return {
    zookeeperHome: nonEmpty(env['ZOOKEEPER_HOME']),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
