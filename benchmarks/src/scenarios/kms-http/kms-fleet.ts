// The cluster rows of kms-http --auth kerberos (--instances 2 or 3): several KMS instances on one
// ZooKeeper (the token store shared) behind a round-robin balancer, creations by the hadoop.auth
// cookie. Pure: the fleet's members and settings, its rows, table and goal.
import {
  compareRounds,
  formatRatioWithRange,
  formatSiWithRange,
  summarize,
  type RatioSummary,
  type Summary,
  type TableColumn,
} from '../../harness/index.js';
import type { KmsVersion } from './kms-versions.js';

/**
 * A fleet row: `shared`, fastpath-kms instances signing cookies with secrets shared through
 * ZooKeeper (`signer.secret.provider=zookeeper`); `random`, the same instances each with its own
 * `random` secret, so a cookie is honoured only by its issuer; `mixed`, Hadoop's KMS and
 * fastpath-kms instances, secrets shared (a rolling migration).
 */
export type FleetKind = 'shared' | 'random' | 'mixed';
export const FLEET_KINDS: readonly FleetKind[] = Object.freeze(['shared', 'random', 'mixed']);

/** The fleet of a case: how many instances, and which row. */
export interface FleetSetup {
  instances: number;
  kind: FleetKind;
}

/** The fastpath version every fleet runs: the fixed token manager (the cookie rows' reference). */
export const FLEET_VERSION: KmsVersion = 'fixed';

/**
 * The fleet's members in the balancer's order: Hadoop's KMS first in the mixed fleet (it starts
 * first, so its check of the sequence counter sees one batch), fastpath's fixed version otherwise.
 *
 * @example fleetMembers({ instances: 3, kind: 'mixed' }) // ['hadoop', 'fixed', 'fixed']
 */
export function fleetMembers(fleet: FleetSetup): KmsVersion[] {
  return Array.from({ length: fleet.instances }, (_, i) =>
    fleet.kind === 'mixed' && i === 0 ? 'hadoop' : FLEET_VERSION,
  );
}

/** kms-site.xml entries of the fleet's cookie signer secrets, on every member alike. */
export function fleetSignerSite(kind: FleetKind, zooKeeperConnectString: string): Record<string, string> {
  const signer = 'hadoop.kms.authentication.signer.secret.provider';
  if (kind === 'random') return { [signer]: 'random' };
  return {
    [signer]: 'zookeeper',
    [`${signer}.zookeeper.connection.string`]: zooKeeperConnectString,
    [`${signer}.zookeeper.auth.type`]: 'none',
  };
}

/** One fleet case, or one single-instance cookie case (fleet null), as the rows need it. */
export interface FleetCaseFigures {
  fleet: FleetSetup | null;
  version: KmsVersion;
  mix: string;
  rep: number;
  /** Successful requests/s through the balancer (all instances together). */
  throughput: number;
  /** Server CPU µs per request, every instance's process tree summed. */
  serverUsPerRequest: number | null;
  /** Creations completed in the window, and new Kerberos log-ins after a cookie was refused. */
  creations: number;
  reauthentications: number;
}

/** One row of the fleet table. */
export interface FleetRow {
  mix: string;
  /** null: the single instance's cookie row, the reference. */
  kind: FleetKind | null;
  instances: number;
  throughput: Summary;
  perInstance: Summary;
  /** Requests/s per instance over the single instance's, paired by repetition; null without both. */
  perInstanceOverSingle: RatioSummary | null;
  /** The shared row's requests/s over the random row's of the same size and mix, paired by repetition; null elsewhere. */
  sharedOverRandom: RatioSummary | null;
  serverUsPerRequest: Summary | null;
  /** New log-ins per creation (a refused cookie each); null without creations. */
  reauthenticationsPerCreation: Summary | null;
}

/**
 * Rows per mix with creations: the single instance of the fleet's version (the cookie row), then
 * each fleet (shared, random and mixed, by size: the fleet of one first), each with its
 * requests/s per instance over the single instance's.
 */
export function fleetRows(cases: readonly FleetCaseFigures[]): FleetRow[] {
  const fleetCases = cases.filter((c) => c.fleet !== null);
  const mixes = [...new Set(fleetCases.map((c) => c.mix))];
  return mixes.flatMap((mix) => {
    const single = cases
      .filter((c) => c.fleet === null && c.mix === mix && c.version === FLEET_VERSION)
      .sort((a, b) => a.rep - b.rep);
    const sizes = [...new Set(fleetCases.map((c) => c.fleet?.instances ?? 1))].sort((a, b) => a - b);
    const groups: Array<{ kind: FleetKind | null; own: FleetCaseFigures[] }> = [
      { kind: null, own: single },
      ...sizes.flatMap((size) =>
        FLEET_KINDS.map((kind) => ({
          kind,
          own: fleetCases
            .filter((c) => c.mix === mix && c.fleet?.kind === kind && c.fleet.instances === size)
            .sort((a, b) => a.rep - b.rep),
        })),
      ),
    ];
    return groups
      .filter((g) => g.own.length > 0)
      .map(({ kind, own }): FleetRow => {
        const instances = own[0]?.fleet?.instances ?? 1;
        const perInstance = own.map((c) => ({ rep: c.rep, value: c.throughput / instances }));
        const cpu = own.map((c) => c.serverUsPerRequest).filter((x): x is number => typeof x === 'number');
        const reauth = own.filter((c) => c.creations > 0).map((c) => c.reauthentications / c.creations);
        const random = fleetCases.filter(
          (c) => c.mix === mix && c.fleet?.kind === 'random' && c.fleet.instances === instances,
        );
        return {
          mix,
          kind,
          instances,
          throughput: summarize(own.map((c) => c.throughput)),
          perInstance: summarize(perInstance.map((p) => p.value)),
          perInstanceOverSingle: kind === null ? null : pairedRatio(perInstance, single),
          sharedOverRandom:
            kind === 'shared'
              ? pairedRatio(
                  own.map((c) => ({ rep: c.rep, value: c.throughput })),
                  random,
                )
              : null,
          serverUsPerRequest: cpu.length > 0 ? summarize(cpu) : null,
          reauthenticationsPerCreation: reauth.length > 0 ? summarize(reauth) : null,
        };
      });
  });
}

/** `values` over the throughput of `reference`'s case of the same repetition, over the repetitions both have; null for none. */
function pairedRatio(
  values: ReadonlyArray<{ rep: number; value: number }>,
  reference: readonly FleetCaseFigures[],
): RatioSummary | null {
  const pairs = values.flatMap((p) => {
    const s = reference.find((c) => c.rep === p.rep);
    return s && s.throughput > 0 ? [[p.value, s.throughput] as const] : [];
  });
  if (pairs.length === 0) return null;
  return compareRounds(
    pairs.map(([a]) => a),
    pairs.map(([, b]) => b),
  );
}

const ROW_NAMES: Record<FleetKind | 'single', string> = {
  single: 'one instance (the cookie row)',
  shared: 'fleet, secrets shared through ZooKeeper',
  random: 'fleet, a random secret per instance',
  mixed: "mixed fleet (Hadoop's KMS first), secrets shared",
};

/** A row's name in the table, the chart and the goal. */
export function fleetRowLabel(row: Pick<FleetRow, 'kind' | 'instances'>): string {
  if (row.kind === null) return ROW_NAMES.single;
  return `${ROW_NAMES[row.kind]} (${row.instances})`;
}

const withRange = (s: Summary | null): string => (s ? formatSiWithRange(s.median, s.min, s.max) : '—');

/** The table: header cells and rows of plain-text cells. */
export function fleetTable(rows: readonly FleetRow[]): { columns: TableColumn[]; rows: string[][] } {
  const right = (header: string): TableColumn => ({ header, align: 'right' });
  return {
    columns: [
      { header: 'Verify:create' },
      { header: 'Instances' },
      right('req/s'),
      right('req/s per instance'),
      right('per instance / one instance'),
      right('shared / random'),
      right('server µs/request (all instances)'),
      right('log-ins per creation'),
    ],
    rows: rows.map((r) => [
      r.mix,
      fleetRowLabel(r),
      withRange(r.throughput),
      withRange(r.perInstance),
      r.perInstanceOverSingle
        ? formatRatioWithRange(
            r.perInstanceOverSingle.ratio,
            r.perInstanceOverSingle.min,
            r.perInstanceOverSingle.max,
          )
        : '—',
      r.sharedOverRandom
        ? formatRatioWithRange(r.sharedOverRandom.ratio, r.sharedOverRandom.min, r.sharedOverRandom.max)
        : '—',
      r.serverUsPerRequest
        ? `${r.serverUsPerRequest.median.toFixed(0)} (${r.serverUsPerRequest.min.toFixed(0)}–${r.serverUsPerRequest.max.toFixed(0)})`
        : '—',
      r.reauthenticationsPerCreation ? r.reauthenticationsPerCreation.median.toFixed(2) : '—',
    ]),
  };
}

/** The fleet's goal: shared secrets keep at least this share of one instance's requests/s, per instance. */
export const FLEET_GOAL_RATIO = 0.9;

/**
 * One line per mix and size of the shared rows; `met` null where the reference row is missing.
 * A fleet of two or three: requests/s per instance over the single instance's. The fleet of one
 * asks the goal on a machine with fewer cores than instances: its instance shares no core with
 * another, and its reference is the same instance behind the same balancer with a random secret
 * of its own, so that the ratio is what sharing the secrets costs an instance.
 */
export function fleetGoals(
  rows: readonly FleetRow[],
): Array<{ goal: string; measured: string; met: boolean | null }> {
  return rows
    .filter((r) => r.kind === 'shared')
    .map((r) => {
      const ofOne = r.instances === 1;
      const ratio = ofOne ? r.sharedOverRandom : r.perInstanceOverSingle;
      const what = ofOne
        ? 'shared secrets, req/s / the same instance with a random secret'
        : 'shared secrets, req/s per instance / one instance';
      return {
        goal: `Kerberos fleet of ${r.instances}, ${r.mix} cookie: ${what} ≥ ${FLEET_GOAL_RATIO}×`,
        measured: ratio ? `${ratio.ratio.toFixed(2)}×` : '—',
        met: ratio ? ratio.ratio >= FLEET_GOAL_RATIO : null,
      };
    });
}
