import { BenchmarkUsageError } from '../../harness/index.js';
import { parseMix, type OperationMix } from '../../harness/mixed-load/operation-mix.js';

/** Which ZooKeeper the KMS of a case talks to. */
export type ZooKeeperTopology = 'standalone' | 'ensemble';

/** The servers of an ensemble: the smallest quorum that survives a failure. */
export const ENSEMBLE_NODES = 3;

/** The ZooKeeper side of a kms-http run: the matrix's ZooKeeper, the quorum pass, the latency sweep. */
export interface KmsZooKeeperSettings {
  /** The ZooKeeper of the matrix (`--zookeeper`). On `ensemble` the matrix is the quorum table. */
  matrix: ZooKeeperTopology;
  /**
   * Mixes of an extra pass on a 3-node ensemble after a standalone matrix (`--quorum-mixes`);
   * none by default, 100:0 and 90:10 in `benchmarks:all`.
   */
  quorumMixes: OperationMix[];
  /**
   * One-way delays of the latency sweep, ms (`--zk-delay-ms`): standalone ZooKeeper reached through
   * a delay proxy in its own process. None by default, 0, 0.5 and 2 in `benchmarks:all`.
   */
  sweepDelaysMs: number[];
  /** The sweep's one mix. */
  sweepMix: OperationMix;
}

export const ALL_QUORUM_MIXES: readonly string[] = Object.freeze(['100:0', '90:10']);
export const ALL_SWEEP_DELAYS_MS: readonly number[] = Object.freeze([0, 0.5, 2]);
// `all --quick` keeps only the rows the goals read (each case pays ZooKeeper's start and warm-up):
// six cases, about 3 minutes, instead of fifteen on top of the quick matrix.
const QUICK_QUORUM_MIXES: readonly string[] = Object.freeze(['90:10']);
const QUICK_SWEEP_DELAYS_MS: readonly number[] = Object.freeze([2]);
export const SWEEP_MIX = '90:10';

export const KMS_ZOOKEEPER_FLAGS = {
  zookeeper: {
    type: 'string',
    value: 'standalone|ensemble',
    description: `ZooKeeper of the matrix: one server, or a ${ENSEMBLE_NODES}-node ensemble on loopback (default standalone)`,
  },
  'quorum-mixes': {
    type: 'string',
    value: '<list>|none',
    description: `after a standalone matrix, these mixes again on a ${ENSEMBLE_NODES}-node ensemble (default none; in all: ${ALL_QUORUM_MIXES.join(',')}, --quick ${QUICK_QUORUM_MIXES.join(',')})`,
  },
  'zk-delay-ms': {
    type: 'string',
    value: '<list>|none',
    description: `latency sweep at ${SWEEP_MIX}: ZooKeeper behind a proxy adding this one-way delay, ms (default none; in all: ${ALL_SWEEP_DELAYS_MS.join(',')}, --quick ${QUICK_SWEEP_DELAYS_MS.join(',')})`,
  },
} as const;

/**
 * Reads the three flags; `all`: the run is part of `benchmarks:all`, which adds the quorum pass
 * and the sweep (`quick`: 90:10 on the ensemble, a 2 ms delay).
 */
export function parseKmsZooKeeperFlags(
  scenario: string,
  flags: {
    zookeeper?: string | undefined;
    'quorum-mixes'?: string | undefined;
    'zk-delay-ms'?: string | undefined;
  },
  all: boolean,
  quick = false,
): KmsZooKeeperSettings {
  const matrix = flags.zookeeper ?? 'standalone';
  if (matrix !== 'standalone' && matrix !== 'ensemble')
    throw new BenchmarkUsageError(
      `${scenario}: --zookeeper: expected standalone or ensemble, got "${matrix}"`,
    );
  const quorumRaw =
    flags['quorum-mixes'] ??
    (all && matrix === 'standalone' ? (quick ? QUICK_QUORUM_MIXES : ALL_QUORUM_MIXES).join(',') : 'none');
  if (matrix === 'ensemble' && quorumRaw !== 'none')
    throw new BenchmarkUsageError(`${scenario}: --quorum-mixes: the matrix already runs on the ensemble`);
  let quorumMixes: OperationMix[];
  try {
    quorumMixes = quorumRaw === 'none' ? [] : quorumRaw.split(',').map(parseMix);
  } catch (error) {
    throw new BenchmarkUsageError(`${scenario}: --quorum-mixes: ${(error as Error).message}`);
  }
  const delayRaw =
    flags['zk-delay-ms'] ?? (all ? (quick ? QUICK_SWEEP_DELAYS_MS : ALL_SWEEP_DELAYS_MS).join(',') : 'none');
  const sweepDelaysMs =
    delayRaw === 'none'
      ? []
      : delayRaw.split(',').map((part) => {
          const value = Number(part);
          if (part.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1000)
            throw new BenchmarkUsageError(
              `${scenario}: --zk-delay-ms: expected delays from 0 to 1000 ms, got "${delayRaw}"`,
            );
          return value;
        });
  if (new Set(sweepDelaysMs).size !== sweepDelaysMs.length)
    throw new BenchmarkUsageError(`${scenario}: --zk-delay-ms: a delay is given twice in "${delayRaw}"`);
  return { matrix, quorumMixes, sweepDelaysMs, sweepMix: parseMix(SWEEP_MIX) };
}
