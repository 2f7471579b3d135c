import type { OperationMix } from '../../harness/mixed-load/operation-mix.js';
import type { KmsHttpSettings } from './kms-http-settings.js';
import type { KmsVersion } from './kms-versions.js';
import type { ZooKeeperTopology } from './kms-zookeeper-settings.js';

/** The part of the report a case belongs to. */
export type KmsPart = 'matrix' | 'quorum' | 'sweep';

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
}

/**
 * What a run measures, in order within each repetition: the matrix (standalone, or the quorum
 * table when `--zookeeper ensemble`), the quorum pass after a standalone matrix, then the sweep,
 * one pass per delay. The extra passes run fastpath's versions only: Hadoop's KMS adds a JVM start
 * and warm-up per case, and the goals of both parts compare fastpath's original and fixed.
 */
export function kmsPasses(s: KmsHttpSettings): KmsPass[] {
  const fastpath = s.versions.filter((v) => v !== 'hadoop');
  const zk = s.zookeeper;
  return [
    {
      part: zk.matrix === 'ensemble' ? 'quorum' : 'matrix',
      zookeeper: { topology: zk.matrix, delayMs: null },
      mixes: s.mixes,
      versions: s.versions,
    },
    ...(zk.quorumMixes.length > 0 && fastpath.length > 0
      ? [
          {
            part: 'quorum' as const,
            zookeeper: { topology: 'ensemble' as const, delayMs: null },
            mixes: zk.quorumMixes,
            versions: fastpath,
          },
        ]
      : []),
    ...(fastpath.length > 0
      ? zk.sweepDelaysMs.map((delayMs) => ({
          part: 'sweep' as const,
          zookeeper: { topology: 'standalone' as const, delayMs },
          mixes: [zk.sweepMix],
          versions: fastpath,
        }))
      : []),
  ];
}

/** The case file name (without `.json`); the matrix keeps its names of before the extra passes. */
export function caseId(pass: KmsPass, mix: OperationMix, version: KmsVersion, rep: number): string {
  const base = `${mix.verify}-${mix.create}-${version}-rep${rep}`;
  if (pass.zookeeper.delayMs !== null) return `delay${pass.zookeeper.delayMs}ms-${base}`;
  return pass.zookeeper.topology === 'ensemble' ? `ensemble-${base}` : base;
}

/** The case's key in `comparison.json`: `<mix>/<version>/rep<n>`, prefixed for the extra parts. */
export function comparisonKey(pass: KmsPass, mix: OperationMix, version: KmsVersion, rep: number): string {
  const base = `${mix.label}/${version}/rep${rep}`;
  if (pass.zookeeper.delayMs !== null) return `sweep-${pass.zookeeper.delayMs}ms/${base}`;
  return pass.zookeeper.topology === 'ensemble' ? `quorum/${base}` : base;
}
