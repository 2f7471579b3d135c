// @fastpath/kerberos-fixture/jest: the fixture as a suite's setup, in jest's hooks. A subpath of
// its own so that the front door stays free of test-runner globals.
export { DEFAULT_USE_KDC_OPTIONS, useKdc, type UseKdcOptions } from './use-kdc.js';
