// @fastpath/kerberos-fixture: the one front door. Everything public is re-exported here by name.
export { startKdc } from './start-kdc.js';
export { setNativeEnvironment } from './set-native-environment.js';
export type { AddPrincipalOptions, Kdc, KinitOptions } from './kdc.js';
export { DEFAULT_KDC_OPTIONS, type KdcOptions } from './kdc-options.js';
export { KERBEROS_PROGRAMS, locateKerberos, type KerberosPrograms } from './locate-kerberos.js';
export {
  ensureKerberosPackage,
  KERBEROS_BUILD_REQUIREMENTS,
  type EnsureKerberosPackageOptions,
  type KerberosPackageState,
} from './ensure-kerberos-package.js';
export {
  KdcExitedError,
  KdcStateError,
  KdcTimeoutError,
  KerberosCommandError,
  KerberosNotFoundError,
} from './kerberos-fixture-errors.js';
