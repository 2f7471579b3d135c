import { homedir } from 'node:os';
import { join } from 'node:path';
import { KmsKerberosError } from '../../kms-errors.js';
import { KerberosNameRules, KerberosNameRulesError, krb5DefaultRealm } from '@fastpath/hadoop-common';
import { KmsConfigError } from '../../kms-errors.js';
import { KeytabFormatError, keytabPrincipals } from './keytab-principals.js';

const PREFIX = 'hadoop.kms.authentication.kerberos.';

/** Kerberos mode's settings, checked against the keytab and krb5.conf. */
export interface KerberosSettings {
  /** The keytab the acceptor reads (absolute path). */
  readonly keytab: string;
  /** `kerberos.principal` as configured (`HTTP/host`, `HTTP/host@REALM` or `*`). */
  readonly principal: string;
  /** The service principals tickets may be for, with their realm: the configured one, or for `*` every `HTTP/` one of the keytab. */
  readonly acceptedPrincipals: readonly string[];
  readonly nameRules: string;
  readonly nameRulesMechanism: 'hadoop' | 'mit';
  /** krb5.conf's `default_realm`, used by the `DEFAULT` rule; `''` when none is configured. */
  readonly defaultRealm: string;
  /** `kerberos.endpoint.whitelist`, checked as Hadoop checks it (parseEndpointWhitelist). */
  readonly endpointWhitelist: readonly string[];
}

/** What {@link resolveKerberosSettings} reads. */
export interface KerberosSettingsInput {
  readonly keytab: string | undefined;
  readonly principal: string;
  readonly nameRules: string;
  readonly nameRulesMechanism: 'hadoop' | 'mit';
  /** `kerberos.endpoint.whitelist` as configured; absent or `''` for none. */
  readonly endpointWhitelist?: string;
  /** The environment libkrb5 will see (`KRB5_CONFIG`). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Checks Kerberos mode's settings before anything starts, as Hadoop's handler does at init (the
 * keytab must exist, the principal must be in it), and one step further so that a mistake is one
 * line at start rather than a 403 on every request: the keytab must be a keytab, the principal an
 * `HTTP/` service principal, its realm known. Throws {@link KmsKerberosError} naming the setting.
 */
export function resolveKerberosSettings(input: KerberosSettingsInput): KerberosSettings {
  // A settings mistake first, before any file is read.
  const endpointWhitelist = parseEndpointWhitelist(input.endpointWhitelist ?? '');
  const keytab = input.keytab ?? join(homedir(), 'kms.keytab');
  let inKeytab: string[];
  try {
    inKeytab = keytabPrincipals(keytab);
  } catch (error) {
    const why =
      error instanceof KeytabFormatError
        ? `is not a usable Kerberos keytab: ${error.message}`
        : `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
    throw new KmsKerberosError(`${PREFIX}keytab`, `${PREFIX}keytab ${keytab} ${why}`, { cause: error });
  }
  const realm = krb5DefaultRealm(input.env);
  // The rules are settings: a syntax Hadoop refuses is ERR_KMS_CONFIG (exit 2), checked first.
  try {
    new KerberosNameRules(input.nameRules, { mechanism: input.nameRulesMechanism, defaultRealm: realm });
  } catch (error) {
    if (!(error instanceof KerberosNameRulesError)) throw error;
    throw new KmsConfigError(`${PREFIX}name.rules`, `${PREFIX}name.rules: ${error.message}`, {
      cause: error,
    });
  }
  const principal = input.principal.trim();
  let accepted: string[];
  if (principal === '*') {
    accepted = inKeytab.filter((p) => p.startsWith('HTTP/'));
    if (accepted.length === 0) {
      throw new KmsKerberosError(
        `${PREFIX}principal`,
        `${PREFIX}principal is "*" but the keytab ${keytab} holds no HTTP/ principal (it holds ${listOf(inKeytab)})`,
      );
    }
  } else {
    if (!/^HTTP\/[^/@\s]+(@[^/@\s]+)?$/.test(principal)) {
      throw new KmsKerberosError(
        `${PREFIX}principal`,
        `${PREFIX}principal must be an HTTP service principal (HTTP/<host>[@REALM]) or "*", got ${JSON.stringify(principal)}`,
      );
    }
    let full = principal;
    if (!principal.includes('@')) {
      if (realm === '') {
        throw new KmsKerberosError(
          `${PREFIX}principal`,
          `${PREFIX}principal ${principal} names no realm and krb5.conf (${input.env['KRB5_CONFIG'] ?? '/etc/krb5.conf'}) has no default_realm: write ${principal}@<REALM>`,
        );
      }
      full = `${principal}@${realm}`;
    }
    if (!inKeytab.includes(full)) {
      // Hadoop's KMS passes this setting to its SPNEGO handler as written (only HttpServer2's own
      // filter settings resolve _HOST): it starts, then refuses every ticket. Here: one line at start.
      const hint = /^HTTP\/_HOST(@|$)/.test(principal)
        ? "; _HOST is taken as written, as Hadoop's KMS takes it in this setting: write the server's host name"
        : '';
      throw new KmsKerberosError(
        `${PREFIX}principal`,
        `${PREFIX}principal ${full} is not in the keytab ${keytab} (it holds ${listOf(inKeytab)})${hint}`,
      );
    }
    accepted = [full];
  }
  return Object.freeze({
    keytab,
    principal,
    acceptedPrincipals: Object.freeze(accepted),
    nameRules: input.nameRules,
    nameRulesMechanism: input.nameRulesMechanism,
    defaultRealm: realm,
    endpointWhitelist,
  });
}

/**
 * `kerberos.endpoint.whitelist` as Hadoop's Kerberos handler reads it: entries separated by
 * commas or new lines (spaces around them ignored, empty ones skipped), each `/` and word
 * characters only, else Hadoop's refusal. Hadoop compares an entry with the request's servlet
 * path and lets a match through without Kerberos, as an anonymous request. Here `/health`,
 * `/build-info` and `/metrics` are answered without authentication anyway, and the paths of
 * Hadoop's HTTP server (`/jmx`, `/prom`, …) are not served, so such entries change nothing;
 * `/kms` is the servlet path of every KMS call, which Hadoop would then run with no user and
 * fail: it is refused here at start instead. Throws {@link KmsConfigError}.
 */
export function parseEndpointWhitelist(text: string): string[] {
  const entries = text
    .trim()
    .split(/\s*[,\n]\s*/)
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    if (!/^\/\w+$/.test(entry)) {
      throw new KmsConfigError(
        `${PREFIX}endpoint.whitelist`,
        `${PREFIX}endpoint.whitelist: The element of the whitelist: ${entry} must start with '/' and must not contain special characters afterwards`,
      );
    }
    if (entry === '/kms') {
      throw new KmsConfigError(
        `${PREFIX}endpoint.whitelist`,
        `${PREFIX}endpoint.whitelist: /kms is the path of every KMS call, which would then run with no user ` +
          "(Hadoop's KMS fails them); list only paths outside the KMS API",
      );
    }
  }
  return entries;
}

function listOf(principals: readonly string[]): string {
  return principals.length === 0 ? 'no principal' : principals.join(', ');
}
