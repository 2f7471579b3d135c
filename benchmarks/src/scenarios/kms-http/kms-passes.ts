import type { OperationMix } from '../../harness/mixed-load/operation-mix.js';
import { FLEET_KINDS, FLEET_VERSION, type FleetSetup } from './kms-fleet.js';
import type { CreationAuth, KmsHttpSettings } from './kms-http-settings.js';
import type { KmsVersion } from './kms-versions.js';
import type { ZooKeeperTopology } from './kms-zookeeper-settings.js';

/** The part of the report a case belongs to. */
export type KmsPart = 'matrix' | 'quorum' | 'sweep' | 'kerberos' | 'fleet';

/** The ZooKeeper a case runs against: a topology, and a delay proxy in front of it or none. */
export interface ZooKeeperSetup {
  topology: ZooKeeperTopology;
  /** One-way delay of the proxy between the KMS and ZooKeeper, ms; null for no proxy. */
  delayMs: number | null;
}

/** One pass over mixes × versions against one ZooKeeper setup. */
export interface KmsPass {
  part: KmsPart;
  zookeeper: ZooKeeperSetup;
  mixes: OperationMix[];
  versions: KmsVersion[];
  /** How creations authenticate: `simple` (`user.name`), or with Kerberos by SPNEGO or cookie. */
  creationAuth: 'simple' | CreationAuth;
  /** Several instances behind a round-robin balancer (part `fleet`); absent for one instance. */
  fleet?: FleetSetup;
}

/**
 * What a run measures, in order within each repetition: the matrix (standalone, or the quorum
 * table when `--zookeeper ensemble`), the quorum pass after a standalone matrix, then the sweep,
 * one pass per delay. The extra passes run fastpath's versions only: Hadoop's KMS adds a JVM start
 * and warm-up per case, and the goals of both parts compare fastpath's original and fixed. A
 * Kerberos run has its own passes instead (kerberosPasses).
 */
export function kmsPasses(s: KmsHttpSettings): KmsPass[] {
  if (s.auth === 'kerberos') return kerberosPasses(s);
  const fastpath = s.versions.filter((v) => v !== 'hadoop');
  const zk = s.zookeeper;
  return [
    {
      part: zk.matrix === 'ensemble' ? 'quorum' : 'matrix',
      zookeeper: { topology: zk.matrix, delayMs: null },
      mixes: s.mixes,
      versions: s.versions,
      creationAuth: 'simple',
    },
    ...(zk.quorumMixes.length > 0 && fastpath.length > 0
      ? [
          {
            part: 'quorum' as const,
            zookeeper: { topology: 'ensemble' as const, delayMs: null },
            mixes: zk.quorumMixes,
            versions: fastpath,
            creationAuth: 'simple' as const,
          },
        ]
      : []),
    ...(fastpath.length > 0
      ? zk.sweepDelaysMs.map((delayMs) => ({
          part: 'sweep' as const,
          zookeeper: { topology: 'standalone' as const, delayMs },
          mixes: [zk.sweepMix],
          versions: fastpath,
          creationAuth: 'simple' as const,
        }))
      : []),
  ];
}

/**
 * A Kerberos run: one pass per way of authenticating creations, every version in each. A mix
 * without creations (100:0) does not depend on that way, so only the first pass runs it; the
 * report prices the verifications of the other mixes at its figure.
 */
function kerberosPasses(s: KmsHttpSettings): KmsPass[] {
  const single = s.creationAuth
    .map((creationAuth, i) => ({
      part: 'kerberos' as const,
      zookeeper: { topology: 'standalone' as const, delayMs: null },
      mixes: i === 0 ? s.mixes : s.mixes.filter((m) => m.create > 0),
      versions: s.versions,
      creationAuth,
    }))
    .filter((pass) => pass.mixes.length > 0);
  return [...single, ...fleetPasses(s)];
}

/**
 * With `--instances` 2 or 3, a pass per fleet row (shared, random, mixed) after the single
 * instance's: the mixes with creations only (a verification carries a delegation token, never a
 * cookie), creations by cookie, the fixed version (the mixed fleet puts Hadoop's KMS first). First
 * of them two fleets of one, one instance behind the balancer with secrets shared through
 * ZooKeeper and with a random secret: the instance shares no core with another, so the two show
 * what sharing the secrets costs one instance, which the larger fleet, its instances sharing this
 * machine's cores, cannot.
 */
function fleetPasses(s: KmsHttpSettings): KmsPass[] {
  const mixes = s.mixes.filter((m) => m.create > 0);
  if (s.instances < 2 || mixes.length === 0) return [];
  const fleets: FleetSetup[] = [
    { instances: 1, kind: 'shared' },
    { instances: 1, kind: 'random' },
    ...FLEET_KINDS.map((kind) => ({ instances: s.instances, kind })),
  ];
  return fleets.map((fleet) => ({
    part: 'fleet' as const,
    zookeeper: { topology: 'standalone' as const, delayMs: null },
    mixes,
    versions: [FLEET_VERSION],
    creationAuth: 'cookie' as const,
    fleet,
  }));
}

/** The case file name (without `.json`); the matrix keeps its names of before the extra passes. */
export function caseId(pass: KmsPass, mix: OperationMix, version: KmsVersion, rep: number): string {
  const base = `${mix.verify}-${mix.create}-${version}-rep${rep}`;
  if (pass.fleet)
    return `fleet-${pass.fleet.kind}${pass.fleet.instances}-${mix.verify}-${mix.create}-rep${rep}`;
  if (pass.part === 'kerberos') return `kerberos-${pass.creationAuth}-${base}`;
  if (pass.zookeeper.delayMs !== null) return `delay${pass.zookeeper.delayMs}ms-${base}`;
  return pass.zookeeper.topology === 'ensemble' ? `ensemble-${base}` : base;
}

/**
 * The case's key in `comparison.json`: `<mix>/<version>/rep<n>`, prefixed for the extra parts
 * and for Kerberos (`kerberos-spnego/90:10/fixed/rep0`).
 */
export function comparisonKey(pass: KmsPass, mix: OperationMix, version: KmsVersion, rep: number): string {
  const base = `${mix.label}/${version}/rep${rep}`;
  if (pass.fleet) return `fleet-${pass.fleet.kind}${pass.fleet.instances}/${mix.label}/rep${rep}`;
  if (pass.part === 'kerberos') return `kerberos-${pass.creationAuth}/${base}`;
  if (pass.zookeeper.delayMs !== null) return `sweep-${pass.zookeeper.delayMs}ms/${base}`;
  return pass.zookeeper.topology === 'ensemble' ? `quorum/${base}` : base;
}
