import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The tool's folder (holding pom.xml and java/), found through the workspace link so that it
 * works from ESM (tsx), the CommonJS build jest runs, and any working directory in the repository.
 */
export function fixtureDir(): string {
  const require = createRequire(join(process.cwd(), 'noop.js'));
  return dirname(require.resolve('@fastpath/ratis-fixture/package.json'));
}

/** Resolved class path and compiled classes; the tool's .gitignore lists it. */
export function cacheDir(): string {
  return join(fixtureDir(), '.cache');
}
