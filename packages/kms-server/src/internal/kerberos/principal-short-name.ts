import { KmsConfigError } from '../../kms-errors.js';

/** A principal no rule maps, or that maps to a name that is not simple (Hadoop's messages). */
export class ShortNameError extends Error {}

/** Maps an authenticated principal to the short name ACLs, proxy-user rules and audit lines use. */
export type PrincipalShortName = (principal: string) => string;

/**
 * Hadoop's `kerberos.name.rules` for the `DEFAULT` rule: a principal of the default realm with
 * one or two components maps to its first component (`client@R` and `client/host@R` both act
 * as `client`); a name without a realm stays as it is; any other principal matches no rule and is
 * refused under the `hadoop` mechanism, or keeps its full name under `mit`.
 */
export function principalShortName(options: {
  rules: string;
  mechanism: 'hadoop' | 'mit';
  defaultRealm: string | undefined;
}): PrincipalShortName {
  const rules = options.rules.trim().split(/\s+/);
  if (rules.some((rule) => rule !== 'DEFAULT')) {
    throw new KmsConfigError(
      'hadoop.kms.authentication.kerberos.name.rules',
      'hadoop.kms.authentication.kerberos.name.rules: only DEFAULT is supported by this server yet',
    );
  }
  return (principal) => {
    const at = principal.lastIndexOf('@');
    if (at === -1) {
      if (principal.includes('/')) return refuse(principal, options.mechanism);
      return principal;
    }
    const realm = principal.slice(at + 1);
    const components = principal.slice(0, at).split('/');
    if (realm === options.defaultRealm && components.length <= 2 && components[0] !== '') {
      return components[0] as string;
    }
    return refuse(principal, options.mechanism);
  };
}

function refuse(principal: string, mechanism: 'hadoop' | 'mit'): string {
  if (mechanism === 'mit') return principal;
  throw new ShortNameError(`No rules applied to ${principal}`);
}
