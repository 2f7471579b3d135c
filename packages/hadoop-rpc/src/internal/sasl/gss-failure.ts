// GSS-API's refusals sorted into the reasons a user acts on (no ticket: kinit; expired: kinit
// again; unknown server: the principal or the realm is wrong), from MIT Kerberos's texts.
import type { KerberosFailureReason } from '../../hadoop-rpc-errors.js';

const REASONS: readonly [RegExp, KerberosFailureReason][] = [
  [/expired/i, 'expired-ticket'],
  [/No Kerberos credentials available|No credentials were supplied|No credentials cache found/i, 'no-ticket'],
  [/not found in Kerberos database/i, 'unknown-server'],
  [/Cannot contact any KDC|Cannot find KDC/i, 'kdc-unreachable'],
];

/** The reason for a GSS-API failure's text. */
export function gssFailureReason(text: string): KerberosFailureReason {
  for (const [pattern, reason] of REASONS) if (pattern.test(text)) return reason;
  return 'other';
}
