// The per-row comparison of the two clients: every pass's figures summarized (median, min-max),
// the keys written and verified, and fastpath's ratios to Ozone's Java client over paired passes
// with issue 27's goals (throughput ≥ 1×, CPU per MiB ≤ 1×) marked met or missed.
import { compareRounds, summarize, type RatioSummary, type Summary } from '../../harness/index.js';
import type { TreeCpuWindow } from '../../harness/process-cpu.js';
import type { PassFigures, PassSample } from './pass-figures.js';
import { keysPerPass, rowLabel, type RowId, type RowShape } from './ozone-write-settings.js';

export const CLIENTS = Object.freeze(['fastpath', 'java'] as const);
export type WriteClient = (typeof CLIENTS)[number];

export const CLIENT_LABEL: Readonly<Record<WriteClient, string>> = Object.freeze({
  fastpath: 'fastpath (Node)',
  java: "Ozone's Java client",
});

/** What reading a pass's keys back found. */
export interface VerifyCounts {
  /** Keys read back whole, checksums verified, equal to what was written. */
  verified: number;
  /** Keys that could not be read, failed a checksum or differed. */
  failed: number;
  firstError?: string;
}

/** One client's pass of one row: the write, and every read-back of its keys. */
export interface ClientPass {
  pass: number;
  sample: Omit<PassSample, 'latenciesUs'>;
  /** null when the pass committed nothing. */
  figures: PassFigures | null;
  /** fastpath's reader, checksums verified, every key of the pass. */
  readBack: VerifyCounts;
  /** Ozone's Java client reading fastpath's keys (real cluster), else null. */
  crossRead: VerifyCounts | null;
  /**
   * The cluster's process tree over the write call (read from /proc by the scenario, not by the
   * client): CPU ms and the call's wall ms; absent where /proc or the cluster's pid is not known.
   */
  cluster?: TreeCpuWindow;
}

/** One client's passes of one row, or why it stopped. */
export interface ClientRow {
  passes: ClientPass[];
  error?: string;
}

type Metric = keyof PassFigures;
const METRICS: readonly Metric[] = ['mibPerSec', 'keysPerSec', 'p50Ms', 'p99Ms', 'cpuMsPerMiB'];

export interface ClientRowSummary extends Record<Metric, Summary> {
  passes: number;
  keysWritten: number;
  /** Keys that failed to write, over every pass (must be 0). */
  writeErrors: number;
  keysVerified: number;
  verifyFailures: number;
  /** Keys Ozone's Java client read back, or null where it read none. */
  crossVerified: number | null;
  crossFailures: number | null;
  /** The cluster's CPU per MiB this client wrote, ms, over the passes whose cluster CPU was read. */
  clusterCpuMsPerMiB?: Summary;
  /** Cores busy over those passes: this client's CPU and the cluster's, over the write call's time. */
  busyCores?: Summary;
}

/** One row's entry of comparison.json. */
export interface RowComparison {
  row: RowId;
  label: string;
  shape: RowShape;
  keysPerPass: number;
  clients: Partial<Record<WriteClient, ClientRowSummary>>;
  /** fastpath ÷ Java over the passes both measured; absent unless both did. */
  ratios?: Record<'mibPerSec' | 'keysPerSec' | 'p99Ms' | 'cpuMsPerMiB', RatioSummary>;
  /** Issue 27's goals; null where not measured (no Java beside fastpath). */
  goals: { throughput: boolean | null; cpuPerMiB: boolean | null };
  /** Write errors plus failed read-backs of both clients (must be 0). */
  problems: number;
  /** Clients that stopped early, and why. */
  stopped: Partial<Record<WriteClient, string>>;
}

const MiB = 1024 * 1024;
const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

function clientSummary(passes: readonly ClientPass[]): ClientRowSummary | undefined {
  const measured = passes.flatMap((p) => (p.figures ? [p.figures] : []));
  if (measured.length === 0) return undefined;
  const figures = Object.fromEntries(METRICS.map((m) => [m, summarize(measured.map((f) => f[m]))])) as Record<
    Metric,
    Summary
  >;
  const cross = passes.flatMap((p) => (p.crossRead ? [p.crossRead] : []));
  return {
    ...figures,
    passes: measured.length,
    keysWritten: sum(passes.map((p) => p.sample.keys)),
    writeErrors: sum(passes.map((p) => p.sample.errors)),
    keysVerified: sum(passes.map((p) => p.readBack.verified)),
    verifyFailures: sum(passes.map((p) => p.readBack.failed)),
    crossVerified: cross.length ? sum(cross.map((c) => c.verified)) : null,
    crossFailures: cross.length ? sum(cross.map((c) => c.failed)) : null,
    ...clusterFigures(passes),
  };
}

/** The cluster's CPU per MiB and the cores busy, over the passes whose cluster CPU was read. */
function clusterFigures(
  passes: readonly ClientPass[],
): Pick<ClientRowSummary, 'clusterCpuMsPerMiB' | 'busyCores'> {
  const read = passes.flatMap((p) =>
    p.cluster && p.cluster.windowMs > 0 && p.sample.bytes > 0 ? [{ ...p, cluster: p.cluster }] : [],
  );
  if (read.length === 0) return {};
  return {
    clusterCpuMsPerMiB: summarize(read.map((p) => p.cluster.cpuMs / (p.sample.bytes / MiB))),
    busyCores: summarize(read.map((p) => (p.sample.cpuNs / 1e6 + p.cluster.cpuMs) / p.cluster.windowMs)),
  };
}

/**
 * The most MiB/s any client could write on `cores` cores, given the cluster's CPU per MiB in this
 * client's passes: a client costing no CPU at all still leaves the cluster needing that much per
 * MiB, so MiB/s ≤ cores ÷ cluster CPU per MiB. With it, that ceiling ÷ Java's measured MiB/s:
 * where it is below a MiB/s goal, no client can meet the goal on this machine.
 *
 * `freeClient` is the tighter bound of the machine as busy as it was in this client's passes (the
 * cores busy, at most `cores`, less than all of them where the cluster waits on its disk): the
 * MiB/s this client would reach if its own CPU went to the cluster, ÷ Java's measured MiB/s.
 */
export function mibCeiling(
  r: RowComparison,
  client: WriteClient,
  cores: number,
): {
  mibPerSec: number;
  againstJava: number | null;
  freeClient: { mibPerSec: number; againstJava: number | null } | null;
} | null {
  const c = r.clients[client];
  const clusterMs = c?.clusterCpuMsPerMiB?.median;
  if (clusterMs === undefined || clusterMs <= 0) return null;
  const java = r.clients.java?.mibPerSec.median;
  const against = (mibPerSec: number): number | null => (java ? mibPerSec / java : null);
  const mibPerSec = (cores * 1000) / clusterMs;
  const busy = c?.busyCores?.median;
  const free = busy === undefined ? undefined : (Math.min(busy, cores) * 1000) / clusterMs;
  return {
    mibPerSec,
    againstJava: against(mibPerSec),
    freeClient: free === undefined ? null : { mibPerSec: free, againstJava: against(free) },
  };
}

/** Summarizes one row's passes of both clients. */
export function compareRow(
  shape: RowShape,
  measured: Partial<Record<WriteClient, ClientRow>>,
): RowComparison {
  const out: RowComparison = {
    row: shape.id,
    label: rowLabel(shape),
    shape,
    keysPerPass: keysPerPass(shape),
    clients: {},
    goals: { throughput: null, cpuPerMiB: null },
    problems: 0,
    stopped: {},
  };
  for (const client of CLIENTS) {
    const m = measured[client];
    if (!m) continue;
    if (m.error !== undefined) out.stopped[client] = m.error;
    for (const p of m.passes)
      out.problems += p.sample.errors + p.readBack.failed + (p.crossRead?.failed ?? 0);
    const summary = clientSummary(m.passes);
    if (summary) out.clients[client] = summary;
  }
  // Pair the passes by number: pass i of each client ran side by side with the other's pass i.
  const java = new Map((measured.java?.passes ?? []).map((p) => [p.pass, p.figures]));
  const pairs = (measured.fastpath?.passes ?? []).flatMap((p) => {
    const other = java.get(p.pass);
    return p.figures && other ? [[p.figures, other] as const] : [];
  });
  if (pairs.length > 0) {
    const ratio = (m: Metric): RatioSummary =>
      compareRounds(
        pairs.map(([f]) => f[m]),
        pairs.map(([, j]) => j[m]),
      );
    out.ratios = {
      mibPerSec: ratio('mibPerSec'),
      keysPerSec: ratio('keysPerSec'),
      p99Ms: ratio('p99Ms'),
      cpuMsPerMiB: ratio('cpuMsPerMiB'),
    };
    out.goals = {
      throughput: out.ratios.mibPerSec.ratio >= 1,
      cpuPerMiB: out.ratios.cpuMsPerMiB.ratio <= 1,
    };
  }
  return out;
}
