// @fastpath/jvm-fixture: the one front door. Everything public is re-exported here by name.
export {
  forgetDirectory,
  rememberDirectory,
  signalChild,
  spawnServer,
  trackChild,
  type ProcessExit,
  type ServerProcess,
  type SpawnServerOptions,
} from './process-registry.js';
export {
  DEFAULT_RUN_PROCESS_OPTIONS,
  runProcess,
  type ProcessResult,
  type RunProcessOptions,
} from './run-process.js';
export { pickFreePorts } from './free-ports.js';
export { readJvmEnvironment, type JvmEnvironment } from './environment.js';
export { logTail } from './log-tail.js';
export { delay, pollUntil, type PollUntilOptions } from './wait.js';
export { findExecutable } from './find-executable.js';
export {
  JAVA_REQUIREMENTS,
  locateJava,
  type JavaInstallation,
  type LocateJavaOptions,
} from './locate-java.js';
export { locateMaven, MAVEN_REQUIREMENTS, type LocateMavenOptions } from './locate-maven.js';
export {
  DEFAULT_RESOLVE_MAVEN_ARTIFACTS_OPTIONS,
  resolveMavenArtifacts,
  type MavenResolution,
  type ResolveMavenArtifactsOptions,
} from './resolve-maven-artifacts.js';
export {
  compileJava,
  DEFAULT_COMPILE_JAVA_OPTIONS,
  type CompiledJava,
  type CompileJavaOptions,
} from './compile-java.js';
export {
  DEFAULT_ENSURE_DEBIAN_PACKAGES_OPTIONS,
  debianInstallHint,
  ensureDebianPackages,
  missingDebianPackages,
  planDebianInstall,
  type DebianInstallPlan,
  type DebianRequirement,
  type EnsureDebianPackagesOptions,
  type InstallAbility,
} from './debian-packages.js';
export {
  DebianInstallError,
  JavaCompileError,
  JavaNotFoundError,
  MavenNotFoundError,
  MavenResolutionError,
  ProcessTimeoutError,
} from './jvm-errors.js';
