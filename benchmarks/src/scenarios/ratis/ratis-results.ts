// The per-size comparison of the two clients: the figures of every round summarized (median,
// min-max), and fastpath's ratios to Ratis's Java client over paired rounds.
import { compareRounds, summarize, type RatioSummary, type Summary } from '../../harness/index.js';
import type { LoadFigures } from './load-figures.js';

export const CLIENTS = Object.freeze(['fastpath', 'java'] as const);
export type RatisClientName = (typeof CLIENTS)[number];

export const CLIENT_LABEL: Readonly<Record<RatisClientName, string>> = Object.freeze({
  fastpath: 'fastpath (@fastpath/ratis-client, Node)',
  java: "Ratis's RaftClient.async() (Java)",
});

/** What one client did in one size: its rounds, or why it stopped. */
export interface ClientRounds {
  rounds: LoadFigures[];
  error?: string;
}

type Metric = keyof LoadFigures;
const METRICS: readonly Metric[] = ['writesPerSec', 'mibPerSec', 'p50Ms', 'p99Ms', 'cpuMicrosPerWrite'];

/** One size's entry of comparison.json. */
export interface SizeComparison {
  size: string;
  sizeBytes: number;
  window: number;
  writesPerRound: number;
  /** Per client that measured at least one round: each figure over the rounds. */
  clients: Partial<Record<RatisClientName, Record<Metric, Summary> & { rounds: number; error?: string }>>;
  /** fastpath ÷ Java over the rounds both completed, per figure; absent unless both measured. */
  ratios?: Record<'writesPerSec' | 'p99Ms' | 'cpuMicrosPerWrite', RatioSummary>;
  errors: Partial<Record<RatisClientName, string>>;
}

/** Summarizes one size's rounds of both clients. */
export function compareSize(
  size: { size: string; sizeBytes: number; window: number; writesPerRound: number },
  measured: Record<RatisClientName, ClientRounds>,
): SizeComparison {
  const out: SizeComparison = { ...size, clients: {}, errors: {} };
  for (const client of CLIENTS) {
    const { rounds, error } = measured[client];
    if (error !== undefined) out.errors[client] = error;
    if (rounds.length === 0) continue;
    const figures = Object.fromEntries(METRICS.map((m) => [m, summarize(rounds.map((r) => r[m]))])) as Record<
      Metric,
      Summary
    >;
    out.clients[client] = { ...figures, rounds: rounds.length, ...(error === undefined ? {} : { error }) };
  }
  const paired = Math.min(measured.fastpath.rounds.length, measured.java.rounds.length);
  if (paired > 0) {
    const ratio = (m: Metric): RatioSummary =>
      compareRounds(
        measured.fastpath.rounds.slice(0, paired).map((r) => r[m]),
        measured.java.rounds.slice(0, paired).map((r) => r[m]),
      );
    out.ratios = {
      writesPerSec: ratio('writesPerSec'),
      p99Ms: ratio('p99Ms'),
      cpuMicrosPerWrite: ratio('cpuMicrosPerWrite'),
    };
  }
  return out;
}
