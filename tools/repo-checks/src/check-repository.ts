import { compareCatalogue, type CatalogueDiff } from './error-catalogue.js';
import { checkBoundaries, type Violation } from './boundaries.js';
import { listSourceFiles, readImports } from './import-scanner.js';
import { readWorkspace } from './workspace.js';

export interface RepositoryReport {
  violations: Violation[];
  catalogue: CatalogueDiff;
  filesScanned: number;
}

/** Runs every repository check over the workspace rooted at `root`. */
export function checkRepository(root: string): RepositoryReport {
  const packages = readWorkspace(root);
  const files = packages.flatMap((p) => listSourceFiles(root, `${root}/${p.dir}`));
  const violations = checkBoundaries(packages, readImports(root, files));
  // The packages and the test fixtures under tools/ (their errors are documented too).
  const productSources = files.filter(
    (f) => f.startsWith('packages/') || (f.startsWith('tools/') && !f.startsWith('tools/repo-checks/')),
  );
  return { violations, catalogue: compareCatalogue(root, productSources), filesScanned: files.length };
}
