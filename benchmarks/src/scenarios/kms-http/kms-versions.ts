/**
 * The server versions compared. "original" and "fixed" differ in exactly one setting, the token
 * manager's creation locking, as in the source document; "coalesced" adds persist coalescing to
 * "fixed", fastpath's own step beyond the source. "hadoop" is Apache Hadoop's own KMS with its
 * ZooKeeper token store: the real pre-fix server that "original" imitates.
 */
export type KmsVersion = 'hadoop' | 'original' | 'fixed' | 'coalesced';

/** A fastpath-kms process with one token-manager setting per version. */
export interface FastpathVersionSettings {
  server: 'fastpath';
  creationLocking: 'global' | 'staged';
  persistCoalescing: boolean;
  label: string;
}

/** Apache Hadoop's KMSWebServer in a JVM. */
export interface HadoopVersionSettings {
  server: 'hadoop';
  label: string;
}

export type KmsVersionSettings = FastpathVersionSettings | HadoopVersionSettings;

export const KMS_VERSIONS: Readonly<Record<KmsVersion, KmsVersionSettings>> = Object.freeze({
  hadoop: { server: 'hadoop', label: 'Hadoop KMS' },
  original: {
    server: 'fastpath',
    creationLocking: 'global',
    persistCoalescing: false,
    label: 'Original (global lock)',
  },
  fixed: { server: 'fastpath', creationLocking: 'staged', persistCoalescing: false, label: 'Fixed (staged)' },
  coalesced: {
    server: 'fastpath',
    creationLocking: 'staged',
    persistCoalescing: true,
    label: 'Fixed + coalesced',
  },
});

/** Every version, in the report's column order. */
export const ALL_VERSIONS: readonly KmsVersion[] = Object.freeze([
  'hadoop',
  'original',
  'fixed',
  'coalesced',
]);

/**
 * The versions of a default run. Hadoop's KMS is left out: a JVM per case plus its JIT warm-up
 * adds about half again to the run. `benchmarks:all` includes it.
 */
export const DEFAULT_VERSIONS: readonly KmsVersion[] = Object.freeze(['original', 'fixed', 'coalesced']);

/**
 * The versions of a Kerberos run: Hadoop's KMS, against which its goal is set, and fastpath's
 * original and fixed servers (coalescing changes nothing a Kerberos exchange costs).
 */
export const KERBEROS_VERSIONS: readonly KmsVersion[] = Object.freeze(['hadoop', 'original', 'fixed']);

/**
 * The order of versions in repetition `rep`: Hadoop's KMS first (its JVM start and warm-up are
 * the same wherever it runs), then original and fixed alternating which goes first (so neither
 * always runs on a warmer or cooler machine), and the coalesced run after them.
 */
export function versionOrder(rep: number, versions: readonly KmsVersion[]): KmsVersion[] {
  const pair = versions.filter((v) => v === 'original' || v === 'fixed');
  const ordered = rep % 2 === 0 ? pair : [...pair].reverse();
  return [
    ...(versions.includes('hadoop') ? (['hadoop'] as const) : []),
    ...ordered,
    ...(versions.includes('coalesced') ? (['coalesced'] as const) : []),
  ];
}
