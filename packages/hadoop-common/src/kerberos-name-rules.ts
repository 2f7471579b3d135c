import {
  parseJavaReplacement,
  expandJavaReplacement,
  type ReplacementPart,
} from './internal/java-replacement.js';
import { KerberosName } from './kerberos-name.js';
import { KerberosNameRulesError, NoMatchingKerberosRuleError } from './kerberos-name-errors.js';
import { krb5DefaultRealm } from './krb5-default-realm.js';

/**
 * How rules are applied (`kerberos.name.rules.mechanism`, `hadoop.security.auth_to_local.mechanism`):
 * `hadoop` refuses a principal no rule maps, and a rule result containing `/` or `@`; `mit` keeps
 * the full principal when no rule maps, and allows such results.
 */
export type KerberosNameMechanism = 'hadoop' | 'mit';

/** Options of {@link KerberosNameRules}. */
export interface KerberosNameRulesOptions {
  /** `hadoop` or `mit`, in any case. Default `hadoop` (Hadoop's default). */
  mechanism?: string;
  /**
   * The realm the `DEFAULT` rule maps (a principal of another realm matches no `DEFAULT`).
   * Default: `[libdefaults] default_realm` of the krb5.conf libkrb5 reads (`KRB5_CONFIG`, else
   * `/etc/krb5.conf`), read on first use; `''` when there is none, as in Hadoop.
   */
  defaultRealm?: string;
}

/** Defaults of {@link KerberosNameRulesOptions} (`defaultRealm` comes from krb5.conf). */
export const DEFAULT_KERBEROS_NAME_RULES_OPTIONS = Object.freeze({
  /** `DEFAULT`: principals of the default realm map to their first component, as Hadoop's default rules. */
  rules: 'DEFAULT',
  /**
   * `hadoop`, the default of `hadoop.security.auth_to_local.mechanism`: unmapped and non-simple
   * names are refused.
   */
  mechanism: 'hadoop' as const,
});

interface Rule {
  /** Hadoop's own rendering of the rule, for messages. */
  readonly text: string;
  apply(
    params: readonly (string | undefined)[],
    mechanism: KerberosNameMechanism,
    defaultRealm: () => string,
  ): string | undefined;
}

// One rule at the start of the remaining text, as Hadoop's parser reads it: DEFAULT, or
// RULE:[n:format](match)s/from/to/g, each part after the format optional, then an optional /L.
const RULE = /^\s*(?:(DEFAULT)|RULE:\[(\d*):([^\]]*)\](?:\(([^)]*)\))?(?:s\/([^/]*)\/([^/]*)\/(g)?)?)\/?(L)?/;
const FORMAT_PIECE = /([^$]*)(?:\$(\d*))?/y;
const NON_SIMPLE = /[/@]/;
const MAX_INT = 2_147_483_647;

/**
 * Hadoop's `kerberos.name.rules` / `hadoop.security.auth_to_local`: the translation of a
 * Kerberos principal to the short name that ACLs, proxy-user settings and audit lines use, with
 * Hadoop's syntax, order, `DEFAULT` realm check, mechanisms and refusals. Rules are read and
 * checked once, at construction.
 *
 * - `DEFAULT`: a principal of the default realm maps to its first component.
 * - `RULE:[n:format](match)s/from/to/g/L`: for principals of `n` components, `format` is filled
 *   (`$0` the realm, `$1`, `$2` the components); if the result matches `match` (whole), the
 *   first (`g`: every) match of `from` is replaced with `to` (Java's replacement syntax: `$1`,
 *   `\$`), and `/L` lower-cases the result. Patterns are JavaScript regular expressions, which
 *   agree with Java's for what rules use (classes, anchors, groups, quantifiers, escapes).
 * - The first rule that applies gives the name. A name without realm and `/` is returned as is.
 *
 * @example
 * ```ts
 * const rules = new KerberosNameRules('RULE:[2:$1;$2](^.*;admin$)s/;admin$// DEFAULT', {
 *   defaultRealm: 'EXAMPLE.COM',
 * });
 * rules.shortName('joe/admin@FOO.COM'); // 'joe'
 * rules.shortName('client/host@EXAMPLE.COM'); // 'client'
 * rules.shortName('client@OTHER.COM'); // throws NoMatchingKerberosRuleError
 * ```
 */
export class KerberosNameRules {
  /** The mechanism in force, lower-cased from the option (default `hadoop`). */
  readonly mechanism: KerberosNameMechanism;
  readonly #rules: readonly Rule[];
  readonly #configuredRealm: string | undefined;
  #realm: string | undefined;

  /**
   * @param rules the rules, separated by white space (new lines in Hadoop's XML). Default `DEFAULT`.
   * @throws KerberosNameRulesError for rules or a mechanism Hadoop would refuse
   */
  constructor(
    rules: string = DEFAULT_KERBEROS_NAME_RULES_OPTIONS.rules,
    options: KerberosNameRulesOptions = {},
  ) {
    if (typeof rules !== 'string')
      throw new KerberosNameRulesError(String(rules), 'expected the rules as a string');
    const mechanism = (options.mechanism ?? DEFAULT_KERBEROS_NAME_RULES_OPTIONS.mechanism).toLowerCase();
    if (mechanism !== 'hadoop' && mechanism !== 'mit') {
      throw new KerberosNameRulesError(rules, `Invalid rule mechanism: ${options.mechanism ?? ''}`);
    }
    if (options.defaultRealm !== undefined && typeof options.defaultRealm !== 'string') {
      throw new KerberosNameRulesError(rules, 'defaultRealm: expected a string');
    }
    this.mechanism = mechanism;
    this.#rules = parseRules(rules);
    this.#configuredRealm = options.defaultRealm;
  }

  /** The default realm `DEFAULT` compares with (read from krb5.conf on first use unless given). */
  get defaultRealm(): string {
    this.#realm ??= this.#configuredRealm ?? krb5DefaultRealm();
    return this.#realm;
  }

  /**
   * The short name of a principal (`client/host@EXAMPLE.COM` → `client` under `DEFAULT`).
   *
   * @throws MalformedKerberosNameError for a name with more than two components before its realm
   * @throws NoMatchingKerberosRuleError under `hadoop` when no rule maps it, or a rule maps it to
   *   a name with `/` or `@`
   * @throws KerberosNameRulesError when a rule's format cannot be filled (`$` without a number)
   */
  shortName(principal: string): string {
    const name = KerberosName.parse(principal);
    if (name.hostName === undefined && name.realm === undefined) return name.serviceName;
    const params =
      name.hostName === undefined
        ? [name.realm, name.serviceName]
        : [name.realm, name.serviceName, name.hostName];
    for (const rule of this.#rules) {
      const result = rule.apply(params, this.mechanism, () => this.defaultRealm);
      if (result !== undefined) return result;
    }
    if (this.mechanism === 'hadoop') {
      throw new NoMatchingKerberosRuleError(principal, `No rules applied to ${name.toString()}`);
    }
    return name.toString();
  }

  /** The rules as Hadoop prints them, one a line. */
  toString(): string {
    return this.#rules.map((rule) => rule.text).join('\n');
  }
}

function parseRules(rules: string): Rule[] {
  const parsed: Rule[] = [];
  let remaining = rules.trim();
  while (remaining.length > 0) {
    const m = RULE.exec(remaining);
    if (m === null) throw new KerberosNameRulesError(rules, `Invalid rule: ${remaining}`);
    parsed.push(m[1] !== undefined ? defaultRule() : explicitRule(rules, m));
    remaining = remaining.slice(m[0].length);
  }
  return parsed;
}

// Hadoop ignores a /L after DEFAULT.
function defaultRule(): Rule {
  return {
    text: 'DEFAULT',
    apply: (params, mechanism, defaultRealm) =>
      checked(defaultRealm() === params[0] ? params[1] : undefined, mechanism, 'DEFAULT'),
  };
}

function explicitRule(rules: string, m: RegExpExecArray): Rule {
  const [, , count = '', format = '', match, from, to, g, lower] = m;
  const components = /^\d+$/.test(count) ? Number(count) : Number.NaN;
  if (!Number.isInteger(components) || components > MAX_INT) {
    throw new KerberosNameRulesError(
      rules,
      `Invalid rule: the component count "${count}" of ${m[0].trim()} is not a number`,
    );
  }
  const matchPattern = match === undefined ? undefined : compile(rules, `^(?:${match})$`, '', match);
  const fromPattern = from === undefined ? undefined : compile(rules, from, g === undefined ? '' : 'g', from);
  let replacement: ReplacementPart[] = [];
  if (fromPattern !== undefined) {
    // Matching the empty alternative tells how many groups, and which named ones, the pattern has.
    const probe = new RegExp(`${fromPattern.source}|`).exec('');
    try {
      replacement = parseJavaReplacement(
        to ?? '',
        (probe?.length ?? 1) - 1,
        new Set(Object.keys(probe?.groups ?? {})),
      );
    } catch (cause) {
      throw new KerberosNameRulesError(
        rules,
        `Invalid replacement "${to ?? ''}" in ${m[0].trim()}: ${(cause as Error).message}`,
        cause,
      );
    }
  }
  const text =
    `RULE:[${components}:${format}]` +
    (match === undefined ? '' : `(${match})`) +
    (from === undefined ? '' : `s/${from}/${to ?? ''}/${g ?? ''}`) +
    (lower === undefined ? '' : '/L');
  return {
    text,
    apply(params, mechanism) {
      if (params.length - 1 !== components) return undefined;
      const base = fillFormat(rules, format, params);
      if (matchPattern !== undefined && !matchPattern.test(base)) return undefined;
      const result =
        fromPattern === undefined
          ? base
          : base.replace(fromPattern, (...args: unknown[]) => {
              const hasNamed = typeof args[args.length - 1] === 'object';
              const groups = args.slice(0, args.length - (hasNamed ? 3 : 2)) as (string | undefined)[];
              const named = hasNamed
                ? (args[args.length - 1] as Record<string, string | undefined>)
                : undefined;
              return expandJavaReplacement(replacement, groups, named);
            });
      const simple = checked(result, mechanism, text);
      return lower === undefined ? simple : simple?.toLowerCase();
    },
  };
}

/** Hadoop refuses, under its own mechanism, a rule result that is not a simple name. */
function checked(
  result: string | undefined,
  mechanism: KerberosNameMechanism,
  rule: string,
): string | undefined {
  if (result !== undefined && mechanism === 'hadoop' && NON_SIMPLE.test(result)) {
    throw new NoMatchingKerberosRuleError(
      result,
      `Non-simple name ${result} after auth_to_local rule ${rule}`,
    );
  }
  return result;
}

// `$n` is replaced by params[n] ($0 the realm); a missing realm prints as Java prints null.
function fillFormat(rules: string, format: string, params: readonly (string | undefined)[]): string {
  let out = '';
  let start = 0;
  while (start < format.length) {
    FORMAT_PIECE.lastIndex = start;
    const piece = FORMAT_PIECE.exec(format);
    if (piece === null || piece[0] === '') break;
    out += piece[1] ?? '';
    const number = piece[2];
    if (number !== undefined) {
      if (number === '' || Number(number) > MAX_INT) {
        throw new KerberosNameRulesError(rules, `bad format in username mapping in ${number}`);
      }
      const index = Number(number);
      if (index >= params.length) {
        throw new KerberosNameRulesError(
          rules,
          `index ${index} from ${format} is outside of the valid range 0 to ${params.length - 1}`,
        );
      }
      out += params[index] ?? 'null';
    }
    start = FORMAT_PIECE.lastIndex;
  }
  return out;
}

function compile(rules: string, source: string, flags: string, written: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (cause) {
    throw new KerberosNameRulesError(
      rules,
      `Invalid regular expression "${written}" in the rules: ${(cause as Error).message}`,
      cause,
    );
  }
}
