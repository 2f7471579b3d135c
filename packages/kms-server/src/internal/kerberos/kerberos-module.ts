// The part of the `kerberos` package (mongodb-js, v7) this server and its client use, typed
// here so that neither needs the package to compile: it is optional, loaded only in Kerberos mode.

/** A GSS acceptor context: one per request, stepped once (Hadoop's exchange is one round trip). */
export interface GssServerContext {
  step(challenge: string): Promise<string>;
  readonly username: string;
  readonly response: string;
  readonly targetName: string;
  readonly contextComplete: boolean;
}

/** A GSS initiator context. */
export interface GssClientContext {
  step(challenge: string): Promise<string>;
  readonly response: string;
  readonly username: string;
  readonly contextComplete: boolean;
}

/** The package's exports used here. */
export interface KerberosModule {
  initializeServer(service: string): Promise<GssServerContext>;
  initializeClient(
    service: string,
    options?: { principal?: string; gssFlag?: number; mechOID?: number },
  ): Promise<GssClientContext>;
  readonly GSS_C_MUTUAL_FLAG: number;
  readonly GSS_C_DELEG_FLAG: number;
  readonly GSS_MECH_OID_KRB5: number;
  readonly GSS_MECH_OID_SPNEGO: number;
}
