// The one KDC-backed test setup: a real KDC from the fixture for the suite, started in
// beforeAll and stopped in afterAll. It lives in the fixture (entry `/jest`, as it registers
// jest hooks), like the ZooKeeper fixture's useZooKeeper.
import { afterAll, beforeAll } from '@jest/globals';
import type { Kdc } from './kdc.js';
import type { KdcOptions } from './kdc-options.js';
import { setNativeEnvironment } from './set-native-environment.js';
import { startKdc } from './start-kdc.js';

/** Options of {@link useKdc}. */
export interface UseKdcOptions {
  /** Options of the fixture (`realm`, `clockSkewSeconds`, …). Default: the fixture's. */
  kdc?: KdcOptions;
  /**
   * Also set this process's `KRB5_CONFIG`, `KRB5_KDC_PROFILE` and `KRB5RCACHEDIR` to the realm's
   * for the suite (restored in afterAll), in the real environment that libkrb5 inside this
   * process (the `kerberos` package) reads (see `setNativeEnvironment`). Default `false`.
   */
  processEnv?: boolean;
  /** Bound of the suite's start and of its stop, in ms. Default: 60 000 (the first start may install MIT Kerberos). */
  hookTimeoutMs?: number;
}

/** Defaults of {@link UseKdcOptions}. */
export const DEFAULT_USE_KDC_OPTIONS = Object.freeze({ processEnv: false, hookTimeoutMs: 60_000 });

/**
 * Starts a real KDC for the enclosing `describe` (or file) and stops it after the suite. The
 * returned `Kdc` forwards to the running one; reading it before `beforeAll` ran throws.
 *
 * @example
 * ```ts
 * import { useKdc } from '@fastpath/kerberos-fixture/jest';
 *
 * const kdc = useKdc({ processEnv: true });
 *
 * it('accepts a ticket', async () => {
 *   const keytab = await kdc.keytab(['HTTP/localhost']);
 *   const ccache = await kdc.kinit('client', { lifetimeSeconds: 60 });
 * });
 * ```
 */
export function useKdc(options: UseKdcOptions = {}): Kdc {
  const hookTimeoutMs = options.hookTimeoutMs ?? DEFAULT_USE_KDC_OPTIONS.hookTimeoutMs;
  const processEnv = options.processEnv ?? DEFAULT_USE_KDC_OPTIONS.processEnv;
  let kdc: Kdc | undefined;
  let saved: Record<string, string | undefined> | undefined;

  beforeAll(async () => {
    kdc = await startKdc(options.kdc);
    if (processEnv) saved = await setNativeEnvironment(kdc.env());
  }, hookTimeoutMs);
  afterAll(async () => {
    if (saved !== undefined) await setNativeEnvironment(saved);
    saved = undefined;
    await kdc?.stop();
  }, hookTimeoutMs);

  const running = (): Kdc => {
    if (kdc === undefined) throw new Error('useKdc: the KDC is read before beforeAll started it');
    return kdc;
  };
  return {
    get realm() {
      return running().realm;
    },
    get krb5ConfigPath() {
      return running().krb5ConfigPath;
    },
    get kdcConfigPath() {
      return running().kdcConfigPath;
    },
    get dir() {
      return running().dir;
    },
    get port() {
      return running().port;
    },
    get pid() {
      return running().pid;
    },
    get logFile() {
      return running().logFile;
    },
    get stopped() {
      return running().stopped;
    },
    principal: (name) => running().principal(name),
    addPrincipal: (name, addOptions) => running().addPrincipal(name, addOptions),
    keytab: (principals) => running().keytab(principals),
    kinit: (principal, kinitOptions) => running().kinit(principal, kinitOptions),
    env: () => running().env(),
    javaOptions: () => running().javaOptions(),
    stop: () => running().stop(),
    [Symbol.asyncDispose]: () => running().stop(),
  };
}
