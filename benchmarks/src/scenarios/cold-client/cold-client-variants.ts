// The variants of the cold-client probe: the client as today, the warm-up's parts one by one, and
// the two ways to load less (one bundled file, and that file through a V8 code cache).

export type ColdClientVariantId = 'as-today' | 'transport' | 'transport-tls' | 'single-file' | 'code-cache';

export interface ColdClientVariant {
  id: ColdClientVariantId;
  label: string;
  /** Which probe file runs. */
  load: 'modules' | 'single' | 'code-cache';
  properties: Record<string, string>;
}

const WARMUP_OFF = { 'ozone.client.warmup.enabled': 'false' };
const WARMUP_TRANSPORT = {
  'ozone.client.warmup.enabled': 'true',
  'ozone.client.warmup.tls.enabled': 'false',
};
const WARMUP_FULL = { 'ozone.client.warmup.enabled': 'true', 'ozone.client.warmup.tls.enabled': 'true' };

export const BASELINE_VARIANT: ColdClientVariantId = 'as-today';

export const COLD_CLIENT_VARIANTS: readonly ColdClientVariant[] = Object.freeze([
  { id: 'as-today', label: 'as today (warm-up off)', load: 'modules', properties: WARMUP_OFF },
  {
    id: 'transport',
    label: 'datanode protocol and checksums warmed up',
    load: 'modules',
    properties: WARMUP_TRANSPORT,
  },
  {
    id: 'transport-tls',
    label: 'and TLS credentials (full warm-up)',
    load: 'modules',
    properties: WARMUP_FULL,
  },
  { id: 'single-file', label: 'full warm-up, one bundled file', load: 'single', properties: WARMUP_FULL },
  {
    id: 'code-cache',
    label: 'full warm-up, one file, V8 code cache',
    load: 'code-cache',
    properties: WARMUP_FULL,
  },
]);
