import { compareRounds, summarize, type RatioSummary, type Summary } from '../../harness/index.js';
import { ALL_VERSIONS, type KmsVersion } from './kms-versions.js';
import type { KerberosCaseFigures } from './kms-kerberos-report.js';
import type { FleetCaseFigures } from './kms-fleet.js';
import type { KmsCaseResult } from './run-kms-case.js';

/** The figures of one measured case that the comparison needs. */
export interface CaseFigures {
  version: KmsVersion;
  mix: string;
  rep: number;
  /** Successful requests per second in the window, all operations. */
  throughput: number;
  verifyP99Ms: number;
  /** Absent at 100:0, where nothing is created. */
  createP99Ms: number | null;
  errors: number;
  /** Server CPU µs per request over the window; null where not measured (an older run). */
  serverUsPerRequest?: number | null;
  /** ZooKeeper CPU µs per creation over the window; null without creations. */
  zookeeperUsPerCreation?: number | null;
  generatorUsPerRequest?: number | null;
}

export interface MixComparison {
  mix: string;
  throughput: Partial<Record<KmsVersion, Summary>>;
  verifyP99Ms: Partial<Record<KmsVersion, Summary>>;
  createP99Ms: Partial<Record<KmsVersion, Summary>>;
  /** CPU µs: the server's per request, ZooKeeper's per creation, the generator's per request. */
  serverUsPerRequest: Partial<Record<KmsVersion, Summary>>;
  zookeeperUsPerCreation: Partial<Record<KmsVersion, Summary>>;
  generatorUsPerRequest: Partial<Record<KmsVersion, Summary>>;
  /** fixed / original, and coalesced / original: ratio of medians and the range of per-rep ratios. */
  fixedOverOriginal: RatioSummary | null;
  coalescedOverOriginal: RatioSummary | null;
  /** Each fastpath version over Hadoop's KMS, paired by repetition; absent without both. */
  overHadoop: Partial<Record<Exclude<KmsVersion, 'hadoop'>, RatioSummary>>;
  errors: number;
}

/**
 * Folds the cases into one row per mix: medians and ranges per version, and ratios paired by
 * repetition (rep i of fixed over rep i of original), since a repetition's versions ran back to
 * back on the same machine state.
 */
export function aggregateCases(cases: readonly CaseFigures[], mixes: readonly string[]): MixComparison[] {
  return mixes.map((mix) => {
    const of = (version: KmsVersion): CaseFigures[] =>
      cases.filter((c) => c.mix === mix && c.version === version).sort((a, b) => a.rep - b.rep);
    const row: MixComparison = {
      mix,
      throughput: {},
      verifyP99Ms: {},
      createP99Ms: {},
      serverUsPerRequest: {},
      zookeeperUsPerCreation: {},
      generatorUsPerRequest: {},
      fixedOverOriginal: null,
      coalescedOverOriginal: null,
      overHadoop: {},
      errors: cases.filter((c) => c.mix === mix).reduce((n, c) => n + c.errors, 0),
    };
    for (const version of ALL_VERSIONS) {
      const runs = of(version);
      if (runs.length === 0) continue;
      row.throughput[version] = summarize(runs.map((c) => c.throughput));
      row.verifyP99Ms[version] = summarize(runs.map((c) => c.verifyP99Ms));
      const creates = runs.map((c) => c.createP99Ms).filter((v): v is number => v !== null);
      if (creates.length > 0) row.createP99Ms[version] = summarize(creates);
      for (const key of ['serverUsPerRequest', 'zookeeperUsPerCreation', 'generatorUsPerRequest'] as const) {
        const values = runs.map((c) => c[key]).filter((v): v is number => typeof v === 'number');
        if (values.length > 0) row[key][version] = summarize(values);
      }
    }
    row.fixedOverOriginal = pairedRatio(of('fixed'), of('original'));
    row.coalescedOverOriginal = pairedRatio(of('coalesced'), of('original'));
    for (const version of ['original', 'fixed', 'coalesced'] as const) {
      const ratio = pairedRatio(of(version), of('hadoop'));
      if (ratio !== null) row.overHadoop[version] = ratio;
    }
    return row;
  });
}

function pairedRatio(candidate: CaseFigures[], baseline: CaseFigures[]): RatioSummary | null {
  const reps = candidate.map((c) => c.rep).filter((rep) => baseline.some((b) => b.rep === rep));
  if (reps.length === 0) return null;
  const pick = (list: CaseFigures[]) =>
    reps.map((rep) => (list.find((c) => c.rep === rep) as CaseFigures).throughput);
  if (pick(baseline).some((v) => v === 0)) return null;
  return compareRounds(pick(candidate), pick(baseline));
}

/** The figures of a measured case that the comparison uses. */
export function figures(r: KmsCaseResult): CaseFigures {
  return {
    version: r.version,
    mix: r.mix,
    rep: r.rep,
    throughput: r.window.throughput,
    verifyP99Ms: r.latency.verify.p99Ms,
    createP99Ms: r.latency.create.count > 0 ? r.latency.create.p99Ms : null,
    errors: r.window.counted.verify.errors + r.window.counted.create.errors,
    serverUsPerRequest: r.cpu.serverUsPerRequest,
    zookeeperUsPerCreation: r.cpu.zookeeperUsPerCreation,
    generatorUsPerRequest: r.cpu.generatorUsPerRequest,
  };
}

/** The figures of a measured Kerberos case (its creations by SPNEGO or cookie). */
export function kerberosFigures(r: KmsCaseResult): KerberosCaseFigures {
  return {
    ...figures(r),
    creationAuth: r.creationAuth === 'simple' ? notKerberos(r) : r.creationAuth,
    requests: r.cpu.requests,
    creations: r.window.counted.create.ok + r.window.counted.create.errors,
  };
}

/** A fleet case, or a single instance's cookie case (its reference), as the fleet rows read it. */
export function fleetFigures(r: KmsCaseResult): FleetCaseFigures {
  return {
    fleet: r.fleet ?? null,
    version: r.version,
    mix: r.mix,
    rep: r.rep,
    throughput: r.window.throughput,
    serverUsPerRequest: r.cpu.serverUsPerRequest,
    creations: r.window.counted.create.ok + r.window.counted.create.errors,
    reauthentications: r.reauthentications ?? 0,
  };
}

function notKerberos(r: KmsCaseResult): never {
  throw new Error(`case ${r.mix}/${r.version}/rep${r.rep} of part ${r.part} is not a Kerberos case`);
}
