/**
 * The three server versions compared. "original" and "fixed" differ in exactly one setting,
 * the token manager's creation locking, as in the source document; "coalesced" adds persist
 * coalescing to "fixed", fastpath's own step beyond the source.
 */
export type KmsVersion = 'original' | 'fixed' | 'coalesced';

export interface KmsVersionSettings {
  creationLocking: 'global' | 'staged';
  persistCoalescing: boolean;
  label: string;
}

export const KMS_VERSIONS: Readonly<Record<KmsVersion, KmsVersionSettings>> = Object.freeze({
  original: { creationLocking: 'global', persistCoalescing: false, label: 'Original (global lock)' },
  fixed: { creationLocking: 'staged', persistCoalescing: false, label: 'Fixed (staged)' },
  coalesced: { creationLocking: 'staged', persistCoalescing: true, label: 'Fixed + coalesced' },
});

export const ALL_VERSIONS: readonly KmsVersion[] = Object.freeze(['original', 'fixed', 'coalesced']);

/**
 * The order of versions in repetition `rep`: original and fixed alternate which goes first (so
 * neither always runs on a warmer or cooler machine), and the coalesced run follows them.
 */
export function versionOrder(rep: number, versions: readonly KmsVersion[]): KmsVersion[] {
  const pair = versions.filter((v) => v !== 'coalesced');
  const ordered = rep % 2 === 0 ? pair : [...pair].reverse();
  return versions.includes('coalesced') ? [...ordered, 'coalesced'] : ordered;
}
