import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The tool's folder (holding pom.xml and java/), found through the workspace link so it works
 * from ESM (tsx), the CommonJS build jest runs, and any working directory inside the repository.
 */
export function fixtureDir(): string {
  const require = createRequire(join(process.cwd(), 'noop.js'));
  return dirname(require.resolve('@fastpath/ozone-fixture/package.json'));
}

/** Everything resolved or built lives here; the repository's .gitignore lists it. */
export function cacheDir(): string {
  return join(fixtureDir(), '.cache');
}
