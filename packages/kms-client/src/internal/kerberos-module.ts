// The part of the optional `kerberos` package (mongodb-js, v7) the client uses, typed here so
// that the client compiles and runs in simple mode without it.

/** A GSS initiator context. */
export interface GssClientContext {
  step(challenge: string): Promise<string>;
  readonly contextComplete: boolean;
}

/** The package's exports used here. */
export interface KerberosModule {
  initializeClient(
    service: string,
    options?: { principal?: string; gssFlag?: number; mechOID?: number },
  ): Promise<GssClientContext>;
  readonly GSS_C_MUTUAL_FLAG: number;
  readonly GSS_C_DELEG_FLAG: number;
  readonly GSS_MECH_OID_KRB5: number;
}

const PACKAGE = 'kerberos';
let loaded: Promise<KerberosModule> | undefined;

/** Loads the package once; rejects with a message saying what to install. */
export function loadKerberosModule(): Promise<KerberosModule> {
  loaded ??= import(PACKAGE).then(
    (module: { default?: KerberosModule } & KerberosModule) => module.default ?? module,
    (cause: unknown) => {
      loaded = undefined;
      throw new Error(
        `the "kerberos" package is needed (npm install kerberos@7; its build needs libkrb5-dev): ${
          (cause as Error).message.split('\n')[0] ?? ''
        }`,
        { cause },
      );
    },
  );
  return loaded;
}
