// The figures of ozone-tde from what the client process and the CPU reads returned: per case
// (one key provider) files/s of the read and the write windows, per-open and per-write latency,
// the KMS's CPU per DECRYPT_EEK; across cases each provider against Hadoop's KMS; and the
// encryption's own cost on large reads, encrypted ÷ plain MiB/s for each client. Pure functions:
// tested without a cluster.
import type { GoalResult, RangedValue } from '../../all/scenario-summary.js';
import { rangedRatio } from '../../all/scenario-summary.js';
import {
  BenchmarkCheckError,
  compareRounds,
  formatRatioWithRange,
  mergeLatencies,
  summarize,
  type RatioSummary,
  type Summary,
} from '../../harness/index.js';
import type { TdeKmsVersion } from './ozone-tde-settings.js';
import type { WindowSample } from './tde-workload.js';

/** One measured round of a case: its read window, its write window, the KMS's CPU in the read window. */
export interface TdeRound {
  read: WindowSample;
  write: WindowSample;
  /** CPU seconds of the KMS's processes over the read window; null where /proc cannot be read. */
  kmsReadCpuSeconds: number | null;
  /** CPU seconds of the cluster's process (OM, SCM, datanodes) over the read window; null where not known. */
  clusterReadCpuSeconds: number | null;
}

export interface LatencyFigures {
  p50Ms: number;
  p99Ms: number;
  count: number;
}

/** One case's figures, as comparison.json holds them (key `case-<version>`). */
export interface TdeCaseFigures {
  version: TdeKmsVersion;
  label: string;
  rounds: number;
  readFilesPerSec: Summary;
  writeFilesPerSec: Summary;
  /** openKey: the lookup and the DECRYPT_EEK, over every round. */
  open: LatencyFigures;
  /** A small file open to close (open, read whole, compare). */
  file: LatencyFigures;
  /** writeKey of a small file: CreateKey (the OM's generateEncryptedKey), the data, the commit. */
  write: LatencyFigures;
  /** KMS CPU ms per DECRYPT_EEK (one per file opened), per round; null without /proc. */
  kmsCpuMsPerDecrypt: Summary | null;
  /** fastpath's client process CPU ms per file read. */
  clientCpuMsPerFile: Summary;
  /** The cluster's CPU ms per file read (its lookup and its datanode read); null without /proc. */
  clusterCpuMsPerFile: Summary | null;
  /**
   * The KMS's share of the CPU a file read took (KMS ÷ KMS + cluster + clients, per round): what
   * a KMS can change of files/s when the cores are the bound. Null without both CPU figures.
   */
  kmsShareOfReadCpu: Summary | null;
  errors: number;
  firstError?: string;
}

const latencyFigures = (encoded: readonly string[]): LatencyFigures => {
  const s = mergeLatencies(encoded).summary();
  return { p50Ms: s.p50Ms, p99Ms: s.p99Ms, count: s.count };
};

const perSecond = (w: WindowSample): number => (w.files * 1000) / w.elapsedMs;

/** A case's figures from its rounds; throws on no rounds or a round in which nothing was read. */
export function caseFigures(
  version: TdeKmsVersion,
  label: string,
  rounds: readonly TdeRound[],
): TdeCaseFigures {
  if (rounds.length === 0) throw new BenchmarkCheckError(`ozone-tde ${version}: no rounds`);
  for (const r of rounds)
    if (r.read.files === 0 || r.write.files === 0)
      throw new BenchmarkCheckError(
        `ozone-tde ${version}: a window with no file done (${r.read.firstError ?? r.write.firstError ?? 'no error'})`,
      );
  const cpu = rounds.map((r) => r.kmsReadCpuSeconds);
  const clusterCpu = rounds.map((r) => r.clusterReadCpuSeconds);
  const known = (xs: readonly (number | null)[]): xs is number[] => xs.every((x) => x !== null);
  const errors = rounds.reduce((n, r) => n + r.read.errors + r.write.errors, 0);
  const firstError = rounds.map((r) => r.read.firstError ?? r.write.firstError).find((e) => e !== undefined);
  return {
    version,
    label,
    rounds: rounds.length,
    readFilesPerSec: summarize(rounds.map((r) => perSecond(r.read))),
    writeFilesPerSec: summarize(rounds.map((r) => perSecond(r.write))),
    open: latencyFigures(rounds.map((r) => r.read.latencies)),
    file: latencyFigures(rounds.map((r) => r.read.fileLatencies)),
    write: latencyFigures(rounds.map((r) => r.write.latencies)),
    kmsCpuMsPerDecrypt: known(cpu) ? summarize(cpu.map((c, i) => (c * 1000) / rounds[i]!.read.files)) : null,
    clientCpuMsPerFile: summarize(rounds.map((r) => (r.read.cpuSeconds * 1000) / r.read.files)),
    clusterCpuMsPerFile: known(clusterCpu)
      ? summarize(clusterCpu.map((c, i) => (c * 1000) / rounds[i]!.read.files))
      : null,
    kmsShareOfReadCpu:
      known(cpu) && known(clusterCpu)
        ? summarize(cpu.map((k, i) => k / (k + clusterCpu[i]! + rounds[i]!.read.cpuSeconds)))
        : null,
    errors,
    ...(firstError === undefined ? {} : { firstError }),
  };
}

const ranged = (s: Summary): RangedValue => ({ value: s.median, min: s.min, max: s.max });

/**
 * A provider's read files/s against Hadoop's KMS: the ratio of medians with the range from the
 * min–max of each (the cases run one after the other, so their rounds do not pair up). Null
 * without both cases.
 */
export function againstHadoop(
  cases: Readonly<Partial<Record<TdeKmsVersion, TdeCaseFigures>>>,
  version: TdeKmsVersion,
  figure: 'readFilesPerSec' | 'writeFilesPerSec' = 'readFilesPerSec',
): RangedValue | null {
  const mine = cases[version];
  const hadoop = cases.hadoop;
  return mine && hadoop ? rangedRatio(ranged(mine[figure]), ranged(hadoop[figure])) : null;
}

/** A client's large reads, MiB/s per read, encrypted and plain taken in turn. */
export interface LargeReads {
  encryptedMiBPerSec: number[];
  plainMiBPerSec: number[];
}

export interface LargeClientFigures {
  encrypted: Summary;
  plain: Summary;
  /** encrypted ÷ plain over paired reads: 1 means encryption costs nothing. */
  ratio: RatioSummary;
}

export interface LargeFigures {
  largeBytes: number;
  fastpath: LargeClientFigures;
  java: LargeClientFigures | null;
}

export function largeClientFigures(reads: LargeReads): LargeClientFigures {
  return {
    encrypted: summarize(reads.encryptedMiBPerSec),
    plain: summarize(reads.plainMiBPerSec),
    ratio: compareRounds(reads.encryptedMiBPerSec, reads.plainMiBPerSec),
  };
}

/**
 * The most files/s a KMS costing nothing could add to Hadoop's KMS's row when the cores are the
 * bound: 1 ÷ (1 − Hadoop's KMS's share of the CPU per file read). Null without that share.
 */
export function kmsBoundOverHadoop(
  cases: Readonly<Partial<Record<TdeKmsVersion, TdeCaseFigures>>>,
): { share: number; bound: number } | null {
  const share = cases.hadoop?.kmsShareOfReadCpu?.median;
  return share === undefined || share >= 1 ? null : { share, bound: 1 / (1 - share) };
}

/** The two goals, held against this run (null where it did not measure them). */
export function tdeGoals(
  cases: Readonly<Partial<Record<TdeKmsVersion, TdeCaseFigures>>>,
  large: LargeFigures | null,
): GoalResult[] {
  const fixed = againstHadoop(cases, 'fixed');
  const goals: GoalResult[] = [
    {
      goal: "fastpath-kms (fixed) ≥ 2× Hadoop's KMS files/s (small encrypted files opened and read, 16 clients)",
      target: '≥ 2×',
      measured: fixed ? formatRatioWithRange(fixed.value, fixed.min, fixed.max) : 'not measured',
      met: fixed ? fixed.value >= 2 : null,
    },
  ];
  const fast = large?.fastpath.ratio;
  const java = large?.java?.ratio;
  goals.push({
    goal: "encryption costs fastpath's client no more than it costs Ozone's Java client (encrypted ÷ plain MiB/s, large reads)",
    target: 'fastpath ratio ≥ Java ratio',
    measured:
      fast && java
        ? `fastpath ${formatRatioWithRange(fast.ratio, fast.min, fast.max)}, Java ${formatRatioWithRange(java.ratio, java.min, java.max)}`
        : fast
          ? `fastpath ${formatRatioWithRange(fast.ratio, fast.min, fast.max)}, Java not measured (--cluster real)`
          : 'not measured',
    met: fast && java ? fast.ratio >= java.ratio : null,
  });
  return goals;
}
