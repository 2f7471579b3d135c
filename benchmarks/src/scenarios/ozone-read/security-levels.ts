// The security levels a real-cluster Ozone scenario can run at, and the `--security` flag that
// picks them: none (today's cluster), kerberos (Kerberos SASL on every Hadoop RPC connection,
// block and container tokens) and privacy (the same with every RPC message wrapped for
// confidentiality, and TLS on the datanodes' gRPC and Ratis). Each level gets a cluster of its
// own, so a client's secure rows can be set against its own unsecured ones.
import { BenchmarkUsageError, listFlag, type FlagDefinition } from '../../harness/index.js';

export const SECURITY_LEVELS = ['none', 'kerberos', 'privacy'] as const;
export type SecurityLevel = (typeof SECURITY_LEVELS)[number];

export const SECURITY_LEVEL_LABEL: Readonly<Record<SecurityLevel, string>> = Object.freeze({
  none: 'none',
  kerberos: 'Kerberos',
  privacy: 'Kerberos + privacy, TLS',
});

export const SECURITY_FLAG = {
  type: 'string',
  value: '<list>',
  description:
    'with --cluster real: the security levels, a cluster each: none, kerberos (Kerberos SASL, block tokens), privacy (also hadoop.rpc.protection=privacy and datanode TLS) (default none)',
} as const satisfies FlagDefinition;

/** `--security`: the levels asked for, in the order given; a secure one needs `--cluster real`. */
export function securityFlag(scenario: string, raw: string | undefined, cluster: string): SecurityLevel[] {
  const levels = listFlag(scenario, 'security', raw, ['none'], SECURITY_LEVELS);
  if (cluster !== 'real' && levels.some((l) => l !== 'none'))
    throw new BenchmarkUsageError(
      `${scenario}: --security ${levels.join(',')} needs --cluster real (Apache Ozone's secure MiniOzoneCluster on a KDC)`,
    );
  return levels;
}

/** Whether any level needs the KDC. */
export function anySecure(levels: readonly SecurityLevel[]): boolean {
  return levels.some((l) => l !== 'none');
}

/** A secure level's case-id and result-key mark (`kerberos-`), none for today's cluster. */
export function securityMark(level: SecurityLevel | undefined): string {
  return level === undefined || level === 'none' ? '' : `${level}-`;
}
