import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compareCatalogue,
  compareHttpColumns,
  httpColumnsInCatalogue,
  httpRowsInSource,
  type CatalogueDiff,
  type HttpAnswerRow,
} from './error-catalogue.js';
import { checkBoundaries, type Violation } from './boundaries.js';
import { bareFastpathErrors, type BareErrorSite } from './error-style.js';
import { checkRetriableColumn } from './error-retriable.js';
import {
  checkDeclaredDependencies,
  readDependencyInputs,
  type DependencyProblem,
} from './declared-dependencies.js';
import { listSourceFiles, readImports } from './import-scanner.js';
import { readWorkspace } from './workspace.js';

export interface RepositoryReport {
  violations: Violation[];
  catalogue: CatalogueDiff;
  /** Disagreements between the HTTP columns of docs/errors.md and kms-server's code table. */
  httpColumns: string[];
  /** Errors constructed as `new FastpathError(` outside core (docs/errors.md: a subclass per code family). */
  bareErrors: BareErrorSite[];
  /** Error classes whose `super(...)` says another `retriable` than docs/errors.md's column. */
  retriableColumn: string[];
  /** Imports of undeclared packages, declarations nothing imports, cycles Nx cannot build. */
  dependencies: DependencyProblem[];
  filesScanned: number;
}

/** Runs every repository check over the workspace rooted at `root`. */
export function checkRepository(root: string): RepositoryReport {
  const packages = readWorkspace(root);
  const files = packages.flatMap((p) => listSourceFiles(root, `${root}/${p.dir}`));
  const imports = readImports(root, files);
  const violations = checkBoundaries(packages, imports);
  // The packages and the test fixtures under tools/ (their errors are documented too).
  const productSources = files.filter(
    (f) => f.startsWith('packages/') || (f.startsWith('tools/') && !f.startsWith('tools/repo-checks/')),
  );
  // kms-server's table, wherever it lives: the one source file that defines the catalogue.
  const tableFile = productSources.find(
    (f) => !/\.test\.ts$/.test(f) && readFileSync(join(root, f), 'utf8').includes('KMS_ERROR_CATALOGUE = '),
  );
  const table =
    tableFile === undefined
      ? new Map<string, HttpAnswerRow>()
      : httpRowsInSource(readFileSync(join(root, tableFile), 'utf8'));
  const httpColumns =
    table.size === 0
      ? ['no KMS_ERROR_CATALOGUE table found in the sources']
      : compareHttpColumns(httpColumnsInCatalogue(readFileSync(join(root, 'docs/errors.md'), 'utf8')), table);
  return {
    violations,
    catalogue: compareCatalogue(root, productSources),
    httpColumns,
    bareErrors: bareFastpathErrors(root, productSources),
    retriableColumn: checkRetriableColumn(root, productSources),
    dependencies: checkDeclaredDependencies(packages, imports, readDependencyInputs(root, packages, files)),
    filesScanned: files.length,
  };
}
