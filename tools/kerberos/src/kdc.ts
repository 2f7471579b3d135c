/** Options of {@link Kdc.addPrincipal}. */
export interface AddPrincipalOptions {
  /** The principal's password; default: a random key (use a keytab to log in). Sent on stdin, never on a command line. */
  password?: string;
}

/** Options of {@link Kdc.kinit}. */
export interface KinitOptions {
  /** Log in from this keytab. */
  keytab?: string;
  /** Log in with this password (sent on stdin). */
  password?: string;
  /** The ticket's lifetime, in seconds. Default: the realm's maximum (`maxTicketLifetimeSeconds`). */
  lifetimeSeconds?: number;
  /** The credentials cache to write (a path). Default: a new file in the realm's folder. */
  ccache?: string;
}

/**
 * A running MIT KDC and its realm, in a folder of its own. Stopping it kills the KDC and deletes
 * the folder (database, keytabs, credentials caches, logs).
 */
export interface Kdc extends AsyncDisposable {
  /** The realm, e.g. `EXAMPLE.COM`. */
  readonly realm: string;
  /** The realm's krb5.conf: what `KRB5_CONFIG` and `-Djava.security.krb5.conf` must name. */
  readonly krb5ConfigPath: string;
  /** The KDC's own kdc.conf (`KRB5_KDC_PROFILE`, for kadmin.local and krb5kdc). */
  readonly kdcConfigPath: string;
  /** The realm's folder. */
  readonly dir: string;
  /** The KDC's port on 127.0.0.1, the same on TCP and UDP. */
  readonly port: number;
  /** The KDC process id. */
  readonly pid: number;
  /** The KDC's log (`kdc.log` in the folder): every AS and TGS request, for assertions. */
  readonly logFile: string;
  /** Whether `stop()` was called. */
  readonly stopped: boolean;
  /** `name` with this realm appended when it has none (`client/host` → `client/host@EXAMPLE.COM`). */
  principal(name: string): string;
  /**
   * Creates a principal (`client`, `client/host`, `HTTP/localhost`) with a random key or the
   * given password. Resolves with its full name.
   *
   * @throws KerberosCommandError when it exists already or kadmin.local refuses the name
   */
  addPrincipal(name: string, options?: AddPrincipalOptions): Promise<string>;
  /**
   * Writes a new keytab holding the current keys of `principals` (created with random keys when
   * they do not exist yet; the keys of existing ones are kept, so earlier keytabs and passwords
   * stay valid). Resolves with its path.
   */
  keytab(principals: readonly string[]): Promise<string>;
  /**
   * Gets a TGT for `principal` into a credentials cache and resolves with the cache's path (for
   * `KRB5CCNAME`). From `keytab`, or `password`, or else from a new keytab of the principal
   * (created when missing).
   *
   * @throws KerberosCommandError when the KDC refuses (wrong password, unknown principal)
   */
  kinit(principal: string, options?: KinitOptions): Promise<string>;
  /**
   * The environment a child process (or this process, before its first GSS call) needs to use
   * the realm: `KRB5_CONFIG`, `KRB5_KDC_PROFILE` and `KRB5RCACHEDIR` (replay caches in the
   * folder). A JVM does not read `KRB5_CONFIG`: give it {@link Kdc.javaOptions} too.
   */
  env(): Record<string, string>;
  /** The JVM flags that point Java's Kerberos at the realm: `-Djava.security.krb5.conf=<krb5ConfigPath>`. */
  javaOptions(): string[];
  /** Kills the KDC (SIGTERM, then SIGKILL) and deletes the folder. Idempotent. */
  stop(): Promise<void>;
}
