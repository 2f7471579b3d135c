export { listSourceFiles, readImports, scanImports, type ImportRef } from './import-scanner.js';
export { findWorkspaceRoot, readWorkspace, type WorkspacePackage } from './workspace.js';
export { ALLOWED_PRODUCT_EDGES, checkBoundaries, findCycles, type Violation } from './boundaries.js';
export { codesInCatalogue, codesInSources, compareCatalogue, type CatalogueDiff } from './error-catalogue.js';
export { checkRepository, type RepositoryReport } from './check-repository.js';
export { bareFastpathErrors, bareFastpathErrorsIn, type BareErrorSite } from './error-style.js';
export {
  checkDeclaredDependencies,
  isRuntimeFile,
  LOADED_BY_NAME,
  packageOfSpecifier,
  readDependencyInputs,
  type DependencyInputs,
  type DependencyProblem,
  type Manifest,
} from './declared-dependencies.js';
