// How the client authenticates to the OM over Hadoop RPC, from its security options and the
// Hadoop/Ozone settings, as Ozone's Java client decides: a delegation token for the OM first (a
// YARN or Spark task holds only that), else Kerberos when `hadoop.security.authentication` is
// `kerberos`; the OM's principal from `ozone.om.kerberos.principal` (or its pattern); the
// protection from `hadoop.rpc.protection`. With neither, SIMPLE as before.
import { InvalidOptionError } from '@fastpath/core';
import { type Credentials, KerberosNameRules } from '@fastpath/hadoop-common';
import {
  createKerberosSaslMechanism,
  createTokenSaslMechanism,
  type HadoopRpcProtection,
  RPC_PROTECTION_QOP,
  type SaslMechanism,
} from '@fastpath/hadoop-rpc';
import { decodeOzoneTokenIdentifier, OZONE_TOKEN_KIND } from '../../ozone-token-identifier.js';

/** The client's security: how it logs in to the OM. */
export interface OzoneSecurityOptions {
  /**
   * Log in with Kerberos: `true` from the ticket cache (`KRB5CCNAME`, filled by `kinit`);
   * `{ principal?, keytab? }` from a keytab (a new ticket got by itself whenever one ends). Default:
   * on, from the ticket cache, when `hadoop.security.authentication` is `kerberos`; else off.
   */
  kerberos?:
    | boolean
    | {
        /** The client principal (`etl@EXAMPLE.COM`). Default: the keytab's first, or the cache's. */
        principal?: string;
        /** The keytab to log in from. Default: none, the ticket cache. */
        keytab?: string;
      };
  /**
   * Delegation tokens held (e.g. `await Credentials.readFile(process.env.HADOOP_TOKEN_FILE_LOCATION)`):
   * an `OzoneToken` whose service names the OM is used before Kerberos. Default: none.
   */
  credentials?: Credentials;
}

/** The Hadoop RPC client's authentication settings for the OM. */
export interface OmSaslSettings {
  authProtocol: 'none' | 'sasl';
  saslMechanisms: readonly SaslMechanism[] | undefined;
  /** Whether Kerberos is among them (delegation tokens can be got only over it). */
  kerberos: boolean;
}

const PROTECTIONS = Object.keys(RPC_PROTECTION_QOP) as HadoopRpcProtection[];

function protections(value: string | undefined): HadoopRpcProtection[] {
  const list = (value ?? 'authentication')
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter((p) => p !== '');
  const bad = list.find((p) => !PROTECTIONS.includes(p as HadoopRpcProtection));
  if (bad !== undefined || list.length === 0) {
    throw new InvalidOptionError(
      'hadoop.rpc.protection',
      `expected a comma list of ${PROTECTIONS.join(', ')}`,
    );
  }
  return list as HadoopRpcProtection[];
}

/** The settings for `security` and the configuration `lookup` (ozone-site.xml and properties). */
export function omSaslSettings(
  security: OzoneSecurityOptions | undefined,
  lookup: (key: string) => string | undefined,
): OmSaslSettings {
  const authentication = (lookup('hadoop.security.authentication') ?? 'simple').trim().toLowerCase();
  if (authentication !== 'simple' && authentication !== 'kerberos') {
    throw new InvalidOptionError('hadoop.security.authentication', 'expected simple or kerberos');
  }
  const login = security?.kerberos ?? authentication === 'kerberos';
  const tokens = [...(security?.credentials?.tokens.values() ?? [])].filter(
    (t) => t.kind === OZONE_TOKEN_KIND,
  );
  if (login === false && tokens.length === 0) {
    return { authProtocol: 'none', saslMechanisms: undefined, kerberos: false };
  }
  const protection = protections(lookup('hadoop.rpc.protection'));
  const mechanisms: SaslMechanism[] = [];
  if (tokens.length > 0)
    mechanisms.push(createTokenSaslMechanism({ tokens, kind: OZONE_TOKEN_KIND, protection }));
  if (login !== false) {
    const serverPrincipal = lookup('ozone.om.kerberos.principal');
    const serverPrincipalPattern = lookup('ozone.om.kerberos.principal.pattern');
    if (serverPrincipal === undefined && serverPrincipalPattern === undefined) {
      throw new InvalidOptionError(
        'ozone.om.kerberos.principal',
        'required to log in to the OM with Kerberos (e.g. om/_HOST@EXAMPLE.COM)',
      );
    }
    mechanisms.push(
      createKerberosSaslMechanism({
        ...(serverPrincipal === undefined ? {} : { serverPrincipal }),
        ...(serverPrincipalPattern === undefined ? {} : { serverPrincipalPattern }),
        ...(login === true ? {} : login),
        protection,
      }),
    );
  }
  return { authProtocol: 'sasl', saslMechanisms: mechanisms, kerberos: login !== false };
}

/**
 * The user a secure client acts as when none is given, as Java's client takes its UGI's short name
 * (for key owners and the request's user info): the keytab log-in's principal, else the owner of
 * the first OM token held, each shortened by `hadoop.security.auth_to_local`. `undefined` when
 * neither is known before the log-in (a ticket cache): the caller's default then applies.
 */
export function securityUserName(
  security: OzoneSecurityOptions | undefined,
  lookup: (key: string) => string | undefined,
): string | undefined {
  const login = security?.kerberos;
  const principal =
    (typeof login === 'object' ? login.principal : undefined) ??
    [...(security?.credentials?.tokens.values() ?? [])]
      .filter((t) => t.kind === OZONE_TOKEN_KIND)
      .map((t) => {
        try {
          return decodeOzoneTokenIdentifier(t.identifier).owner;
        } catch {
          return undefined;
        }
      })
      .find((owner) => owner !== undefined && owner !== '');
  if (principal === undefined) return undefined;
  try {
    return new KerberosNameRules(lookup('hadoop.security.auth_to_local') ?? 'DEFAULT').shortName(principal);
  } catch {
    return principal;
  }
}
