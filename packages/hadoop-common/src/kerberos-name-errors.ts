import { FastpathError } from '@fastpath/core';

/**
 * A principal name Hadoop's `KerberosName` cannot parse: more than two components, or a `/`
 * after the `@` (`owen/owen/owen@FOO.COM`, `owen@foo/bar.com`). Hadoop's `IllegalArgumentException`
 * "Malformed Kerberos name".
 */
export class MalformedKerberosNameError extends FastpathError {
  /** The name that could not be parsed, as given. */
  readonly principal: string;
  constructor(principal: string) {
    super('ERR_KERBEROS_NAME_MALFORMED', `Malformed Kerberos name: ${principal}`);
    this.principal = principal;
  }
}

/**
 * No `kerberos.name.rules` rule maps the principal (under the `hadoop` mechanism), or a rule
 * mapped it to a name with `/` or `@` (Hadoop's `NoMatchingRule`, whose messages these are).
 * Authentication fails: Hadoop's filter answers 403.
 */
export class NoMatchingKerberosRuleError extends FastpathError {
  /**
   * The principal no rule mapped, as given; when a rule's result was refused as not simple, that
   * result (e.g. `joe/admin`).
   */
  readonly principal: string;
  constructor(principal: string, message: string) {
    super('ERR_KERBEROS_NO_MATCHING_RULE', message);
    this.principal = principal;
  }
}

/**
 * `kerberos.name.rules` (auth_to_local rules) or their mechanism that cannot be used: a rule the
 * syntax does not accept, a regular expression that does not compile, a `$n` outside a rule's
 * components, a replacement naming a group its pattern lacks, a mechanism other than `hadoop`
 * or `mit`. `rules` holds the text at fault.
 */
export class KerberosNameRulesError extends FastpathError {
  /** The whole rules text as given to {@link KerberosNameRules} (the message names the rule at fault). */
  readonly rules: string;
  constructor(rules: string, message: string, cause?: unknown) {
    super('ERR_KERBEROS_NAME_RULES', message, cause === undefined ? {} : { cause });
    this.rules = rules;
  }
}
