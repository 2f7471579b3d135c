/**
 * The short name of a principal under Kerberos' default rule: the part before the first `/` or
 * `@` (`alice/host@REALM` → `alice`). Plain user names come back unchanged.
 */
export function kerberosShortName(principal: string): string {
  const end = principal.search(/[/@]/);
  return end === -1 ? principal : principal.slice(0, end);
}
