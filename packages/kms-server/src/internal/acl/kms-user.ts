/**
 * Who a request acts as: Hadoop's `UserGroupInformation` reduced to what the KMS needs. For a
 * proxied request (`doas`), this is the proxied user and `realUser` the authenticated one.
 */
export interface KmsUser {
  /** The full name, as authenticated (`alice`, `alice@EXAMPLE.COM`). */
  readonly name: string;
  /** The short name ACLs use (`alice`). */
  readonly shortName: string;
  /**
   * The name audit lines write, when not the short name: in Kerberos mode the authenticated
   * principal (`client/host@EXAMPLE.COM`), as Hadoop's KMS audits Kerberos callers.
   */
  readonly auditName?: string | undefined;
  /** The authenticated user behind a proxied request. */
  readonly realUser: KmsUser | undefined;
  /** The user's groups, resolved on first use. */
  groups(): readonly string[];
}

/**
 * The short name of a user name: the part before the first `/` or `@` (Hadoop's default
 * `auth_to_local` rule for principals of the default realm; plain names stay as they are).
 */
export function shortUserName(name: string): string {
  const end = name.search(/[/@]/);
  return end <= 0 ? name : name.slice(0, end);
}
