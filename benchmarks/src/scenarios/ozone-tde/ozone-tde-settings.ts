import { BenchmarkUsageError, integerFlag, listFlag, parseScenarioFlags } from '../../harness/index.js';
import { DEFAULT_KMS_HTTP_SETTINGS } from '../kms-http/kms-http-settings.js';
import { clusterFlag, sizeFlag, type ClusterKind } from '../ozone-read/ozone-read-settings.js';

/**
 * The cluster's key provider in a case: fastpath-kms in the token mode kms-http calls `fixed`
 * (staged token creation) or `original` (the global lock), or Apache Hadoop's KMS; each with its
 * delegation tokens in ZooKeeper, as kms-http runs them.
 */
export const TDE_KMS_VERSIONS = ['hadoop', 'original', 'fixed'] as const;
export type TdeKmsVersion = (typeof TDE_KMS_VERSIONS)[number];

export interface OzoneTdeSettings {
  cluster: ClusterKind;
  /** The key providers, one case each (a fresh ZooKeeper, KMS and cluster per case). */
  kms: TdeKmsVersion[];
  /** Concurrent clients, each an Ozone client of its own with its own KMS delegation token. */
  clients: number;
  /** Small encrypted files written before the measured windows and opened round-robin. */
  files: number;
  fileBytes: number;
  /** Measured rounds per case; in each, a read window and then a write window. */
  rounds: number;
  windowMs: number;
  /** The large key of the encryption-cost rows (0: no such rows). */
  largeBytes: number;
  /** Reads of the large key per client and bucket (encrypted, plain), alternating. */
  largeReads: number;
  /** With `--cluster real`: Ozone's Java client reads the large keys too. */
  java: boolean;
  /** ZooKeeper's token sequence-number batch and the KMS's processes, as kms-http's defaults. */
  seqNumBatchSize: number;
  workers: number;
  jvmWarmupMs: number;
  datanodes: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;

export const OZONE_TDE_FLAGS = {
  cluster: {
    type: 'string',
    value: '<kind>',
    description:
      "embedded (fastpath's mini cluster in its own process, fastpath only; default) or real (Apache Ozone MiniOzoneCluster, with Ozone's Java client in the large-read rows)",
  },
  kms: {
    type: 'string',
    value: '<list>',
    description: `key providers, one case each (default ${TDE_KMS_VERSIONS.join(',')})`,
  },
  clients: { type: 'string', value: '<n>', description: 'concurrent clients (default 16)' },
  files: {
    type: 'string',
    value: '<n>',
    description: 'small encrypted files opened round-robin (default 512; --quick 64)',
  },
  'file-size': { type: 'string', value: '<size>', description: 'size of a small file (default 16KiB)' },
  rounds: { type: 'string', value: '<n>', description: 'measured rounds per case (default 3; --quick 1)' },
  'window-seconds': {
    type: 'string',
    value: '<s>',
    description: 'length of each read and each write window (default 15; --quick 4)',
  },
  'large-size': {
    type: 'string',
    value: '<size>',
    description: 'the large key of the encryption-cost rows; 0 for none (default 64MiB; --quick 16MiB)',
  },
  'large-reads': {
    type: 'string',
    value: '<n>',
    description: 'reads of each large key per client (default 5; --quick 2)',
  },
  'no-java': {
    type: 'boolean',
    description: "with --cluster real: no Ozone's Java client in the large-read rows",
  },
} as const;

/** Parses the scenario's flags; bad or unknown flags throw `BenchmarkUsageError`. */
export function parseOzoneTdeFlags(args: readonly string[], quick: boolean): OzoneTdeSettings {
  const name = 'ozone-tde';
  const f = parseScenarioFlags(name, args, OZONE_TDE_FLAGS);
  const kind = clusterFlag(name, f.cluster, 'embedded');
  if (kind !== 'real' && f['no-java'])
    throw new BenchmarkUsageError(
      `${name}: --no-java goes with --cluster real (the embedded run has no Java)`,
    );
  const seconds = integerFlag(name, 'window-seconds', f['window-seconds'], quick ? 4 : 15, {
    min: 1,
    max: 3600,
  });
  return {
    cluster: kind,
    kms: listFlag(name, 'kms', f.kms, TDE_KMS_VERSIONS, TDE_KMS_VERSIONS),
    clients: integerFlag(name, 'clients', f.clients, 16, { min: 1, max: 256 }),
    files: integerFlag(name, 'files', f.files, quick ? 64 : 512, { min: 1, max: 100_000 }),
    fileBytes: sizeFlag(name, 'file-size', f['file-size'], 16 * KiB, { min: 1, max: 64 * MiB }),
    rounds: integerFlag(name, 'rounds', f.rounds, quick ? 1 : 3, { min: 1, max: 100 }),
    windowMs: seconds * 1000,
    largeBytes: sizeFlag(name, 'large-size', f['large-size'], quick ? 16 * MiB : 64 * MiB, {
      min: 0,
      max: 1024 * MiB,
    }),
    largeReads: integerFlag(name, 'large-reads', f['large-reads'], quick ? 2 : 5, { min: 1, max: 1000 }),
    java: kind === 'real' && !f['no-java'],
    seqNumBatchSize: DEFAULT_KMS_HTTP_SETTINGS.seqNumBatchSize,
    workers: DEFAULT_KMS_HTTP_SETTINGS.workers,
    jvmWarmupMs: DEFAULT_KMS_HTTP_SETTINGS.jvmWarmupMs,
    datanodes: 3,
  };
}

// Rough pace on the 2-core machine kind, for the ETA and the plan of `all`: a case's set-up
// (ZooKeeper, the KMS, the cluster, the files written), then its windows; the large reads at
// about 30 MB/s per read.
const CASE_SETUP_MS = { embedded: 30_000, real: 100_000 } as const;
const LARGE_READ_BYTES_PER_MS = 30_000;

/** About how long one case takes, in ms: set-up, the warm-up windows (half a window each), the rounds. */
export function estimateCaseMs(s: OzoneTdeSettings): number {
  return CASE_SETUP_MS[s.cluster] + s.files * 20 + s.windowMs + s.rounds * 2 * s.windowMs;
}

/** About how long the large-read rows take, in ms (once per run, in the first fastpath case). */
export function estimateLargeReadsMs(s: OzoneTdeSettings): number {
  const clients = s.java ? 2 : 1;
  return (2 * clients * s.largeReads * s.largeBytes) / LARGE_READ_BYTES_PER_MS;
}

/** About how long a whole run takes, in ms. */
export function estimateRunMs(s: OzoneTdeSettings): number {
  // Hadoop's KMS warms up for kms-http's JVM warm-up in each window kind, not half a window.
  const jvmWarmupMs = s.kms.includes('hadoop') ? Math.max(0, 2 * s.jvmWarmupMs - s.windowMs) : 0;
  return s.kms.length * estimateCaseMs(s) + jvmWarmupMs + estimateLargeReadsMs(s);
}

/** The case that also measures the large reads: the first fastpath-kms case, else the first. */
export function largeReadCase(s: OzoneTdeSettings): TdeKmsVersion | null {
  if (s.largeBytes === 0) return null;
  return s.kms.find((v) => v !== 'hadoop') ?? s.kms[0] ?? null;
}
