import {
  BenchmarkUsageError,
  integerFlag,
  listFlag,
  parseScenarioFlags,
  type FlagValues,
} from '../../harness/index.js';
import { mixesFlag, secondsFlagMs } from '../../harness/mixed-load/mixed-load-flags.js';
import { DEFAULT_MIXES, type OperationMix } from '../../harness/mixed-load/operation-mix.js';
import { ALL_VERSIONS, DEFAULT_VERSIONS, KERBEROS_VERSIONS, type KmsVersion } from './kms-versions.js';
import {
  KMS_ZOOKEEPER_FLAGS,
  parseKmsZooKeeperFlags,
  type KmsZooKeeperSettings,
} from './kms-zookeeper-settings.js';

export interface KmsHttpSettings {
  warmupMs: number;
  measureMs: number;
  reps: number;
  mixes: OperationMix[];
  concurrency: number;
  /** KMS server processes (node:cluster workers) per case. */
  workers: number;
  /** In the report's column order (ALL_VERSIONS), whatever order `--versions` gave. */
  versions: KmsVersion[];
  /**
   * Load on Hadoop's KMS before each of its cases, on top of `warmupMs`: the JVM compiles its
   * hot paths while it runs (fastpath's servers need no more than `warmupMs`).
   */
  jvmWarmupMs: number;
  /**
   * Upper bound of ZooKeeper's warm-up before each case (every version alike): batches of
   * creations on a scratch path until its CPU per creation settles; 0 for none.
   */
  zkWarmupMs: number;
  seqNumBatchSize: number;
  /** Also measure the trivial Fastify route (this machine's ceiling) once per repetition. */
  baseline: boolean;
  requestTimeoutMs: number;
  /** The matrix's ZooKeeper, the quorum pass and the latency sweep (kms-zookeeper-settings.ts). */
  zookeeper: KmsZooKeeperSettings;
  /**
   * How token creations authenticate: `simple` (`user.name`, the source document's setting) or
   * `kerberos` (a real MIT KDC; the servers in Kerberos mode). Verification is by delegation
   * token either way.
   */
  auth: 'simple' | 'kerberos';
  /**
   * With `kerberos`, one pass each, in this order: `spnego`, a fresh Kerberos exchange on every
   * creation (the worst case), and `cookie`, one log-in per load generator and its `hadoop.auth`
   * cookie after it (the common case).
   */
  creationAuth: CreationAuth[];
  /**
   * With `kerberos`, KMS instances per fleet case (`--instances`): 1, no fleet; 2 or 3 adds the
   * cluster rows (kms-fleet.ts) after the single-instance passes.
   */
  instances: number;
  /**
   * With fleet cases (`--profile-fleet`): after the measured window of each fleet case and of the
   * single instance's cookie case they are compared with, in the first repetition, a window of its
   * own with every fastpath instance under V8's profiler, so that no measured figure includes the
   * profiler: where an instance's CPU per request goes.
   */
  profileFleet: boolean;
}

/** How a Kerberos run's creations authenticate (verification is by delegation token either way). */
export type CreationAuth = 'spnego' | 'cookie';
export const CREATION_AUTHS: readonly CreationAuth[] = Object.freeze(['spnego', 'cookie']);

/** The source document's setting: 5 s warm-up, 15 s measured, 3 repetitions, 32 in flight. */
/** The settings a case's KMS server is started with (ozone-tde starts the same servers). */
export type CaseServerSettings = Pick<KmsHttpSettings, 'workers' | 'seqNumBatchSize' | 'jvmWarmupMs'>;

export const DEFAULT_KMS_HTTP_SETTINGS: Readonly<Omit<KmsHttpSettings, 'mixes' | 'zookeeper'>> =
  Object.freeze({
    warmupMs: 5000,
    measureMs: 15000,
    reps: 3,
    concurrency: 32,
    workers: 1,
    versions: [...DEFAULT_VERSIONS],
    jvmWarmupMs: 20_000,
    zkWarmupMs: 20_000,
    seqNumBatchSize: 100,
    baseline: true,
    requestTimeoutMs: 30_000,
    auth: 'simple',
    creationAuth: [...CREATION_AUTHS],
    instances: 1,
    profileFleet: false,
  });

/** The mixes of `--auth kerberos` unless `--mixes` says otherwise. */
const KERBEROS_MIXES = '100:0,90:10';

const QUICK = Object.freeze({
  warmupMs: 1000,
  measureMs: 3000,
  reps: 1,
  jvmWarmupMs: 5000,
  zkWarmupMs: 5000,
});

export const KMS_HTTP_FLAGS = {
  warmup: { type: 'string', value: '<s>', description: 'warm-up per case in seconds (default 5; --quick 1)' },
  measure: {
    type: 'string',
    value: '<s>',
    description: 'measured window per case in seconds (default 15; --quick 3)',
  },
  reps: { type: 'string', value: '<n>', description: 'repetitions (default 3; --quick 1)' },
  mixes: {
    type: 'string',
    value: '<list>',
    description: `verify:create mixes (default ${DEFAULT_MIXES.join(',')})`,
  },
  concurrency: { type: 'string', value: '<n>', description: 'requests in flight, closed loop (default 32)' },
  workers: { type: 'string', value: '<n>', description: 'KMS server processes per case (default 1)' },
  versions: {
    type: 'string',
    value: '<list>',
    description: `server versions, of ${ALL_VERSIONS.join(',')} (default ${DEFAULT_VERSIONS.join(',')}; in all: every one)`,
  },
  'jvm-warmup': {
    type: 'string',
    value: '<s>',
    description:
      "extra warm-up of Hadoop's KMS JVM per case in seconds, the case's mix (default 20; --quick 5)",
  },
  'zk-warmup': {
    type: 'string',
    value: '<s>',
    description:
      'at most this long per case, ZooKeeper creations on a scratch path until its CPU per creation settles (default 20; --quick 5; 0 off)',
  },
  'batch-size': {
    type: 'string',
    value: '<n>',
    description: 'sequence-number batch size, every version (default 100)',
  },
  'no-baseline': { type: 'boolean', description: 'skip the trivial Fastify route measurement' },
  auth: {
    type: 'string',
    value: '<simple|kerberos>',
    description: `how creations authenticate: user.name, or Kerberos with a real MIT KDC (default simple; with kerberos the mixes default to ${KERBEROS_MIXES} and the versions to ${KERBEROS_VERSIONS.join(',')})`,
  },
  'creation-auth': {
    type: 'string',
    value: '<list>',
    description: `with --auth kerberos, a pass each: spnego (a Kerberos exchange per creation), cookie (the cookie of one log-in) (default ${CREATION_AUTHS.join(',')})`,
  },
  instances: {
    type: 'string',
    value: '<n>',
    description:
      "with --auth kerberos, 2 or 3: the cluster rows too, that many instances on one ZooKeeper behind a round-robin balancer, cookie secrets shared through ZooKeeper, random per instance, and a mixed fleet with Hadoop's KMS, after two fleets of one, secrets shared and random (default 1: none)",
  },
  'profile-fleet': {
    type: 'boolean',
    description:
      "with --instances 2 or 3, in the first repetition, after the measured window of each fleet case and of the one-instance cookie case, a window of its own with every fastpath instance under V8's profiler (not measured): CPU per request by category and the busiest functions per instance, and the .cpuprofile files (default off)",
  },
  ...KMS_ZOOKEEPER_FLAGS,
} as const;

/** The flags of a run that is Kerberos by definition (`kms-http-kerberos`): no --auth, no ZooKeeper passes. */
export const KMS_HTTP_KERBEROS_FLAGS = Object.freeze(
  Object.fromEntries(
    Object.entries(KMS_HTTP_FLAGS).filter(
      ([name]) => name !== 'auth' && !Object.hasOwn(KMS_ZOOKEEPER_FLAGS, name),
    ),
  ),
) as Omit<typeof KMS_HTTP_FLAGS, 'auth' | keyof typeof KMS_ZOOKEEPER_FLAGS>;

/**
 * Parses the scenario's flags; `all`: it runs as part of `benchmarks:all`, which adds Hadoop's KMS
 * (and, to a simple-authentication run, the quorum pass and the latency sweep). A Kerberos run
 * measures its own table: the ZooKeeper passes are refused with it, and not added in `all`.
 */
export function parseKmsHttpFlags(args: readonly string[], quick: boolean, all = false): KmsHttpSettings {
  return kmsHttpSettings('kms-http', parseScenarioFlags('kms-http', args, KMS_HTTP_FLAGS), quick, all);
}

/** The flags of `kms-http-kerberos`: those of `kms-http --auth kerberos`, which it always is. */
export function parseKmsHttpKerberosFlags(
  args: readonly string[],
  quick: boolean,
  all = false,
): KmsHttpSettings {
  const name = 'kms-http-kerberos';
  const flags = parseScenarioFlags(name, args, KMS_HTTP_KERBEROS_FLAGS);
  return kmsHttpSettings(name, { ...flags, auth: 'kerberos' }, quick, all);
}

function kmsHttpSettings(
  name: string,
  flags: FlagValues<typeof KMS_HTTP_FLAGS>,
  quick: boolean,
  all: boolean,
): KmsHttpSettings {
  const base = quick ? { ...DEFAULT_KMS_HTTP_SETTINGS, ...QUICK } : DEFAULT_KMS_HTTP_SETTINGS;
  const auth =
    listFlag(name, 'auth', flags.auth, [base.auth], ['simple', 'kerberos'] as const)[0] ?? base.auth;
  const kerberos = auth === 'kerberos';
  if (kerberos) {
    const zookeeperFlag = Object.keys(KMS_ZOOKEEPER_FLAGS).find(
      (flag) => flags[flag as keyof typeof KMS_ZOOKEEPER_FLAGS] !== undefined,
    );
    if (zookeeperFlag !== undefined)
      throw new BenchmarkUsageError(
        `${name}: --${zookeeperFlag} is not for a Kerberos run, which measures the standalone matrix's 100:0 and 90:10 only`,
      );
  } else if (flags['creation-auth'] !== undefined) {
    throw new BenchmarkUsageError(`${name}: --creation-auth needs --auth kerberos`);
  } else if (flags.instances !== undefined) {
    throw new BenchmarkUsageError(`${name}: --instances needs --auth kerberos`);
  }
  // A balancer in front of more than three instances would only share this machine's two cores further.
  const instances = integerFlag(name, 'instances', flags.instances, base.instances, { min: 1, max: 3 });
  if (flags['profile-fleet'] && instances < 2)
    throw new BenchmarkUsageError(
      `${name}: --profile-fleet profiles the fleet cases, which need --auth kerberos and --instances 2 or 3`,
    );
  return {
    warmupMs: secondsFlagMs(name, 'warmup', flags.warmup, base.warmupMs, { min: 0, max: 3600 }),
    measureMs: secondsFlagMs(name, 'measure', flags.measure, base.measureMs, { min: 0.5, max: 3600 }),
    reps: integerFlag(name, 'reps', flags.reps, base.reps, { min: 1, max: 100 }),
    // With Kerberos the matrix's two ends: all verification, and the most creation.
    mixes: mixesFlag(name, flags.mixes ?? (auth === 'kerberos' ? KERBEROS_MIXES : undefined)),
    concurrency: integerFlag(name, 'concurrency', flags.concurrency, base.concurrency, { min: 1, max: 4096 }),
    workers: integerFlag(name, 'workers', flags.workers, base.workers, { min: 1, max: 64 }),
    versions: listFlag(
      name,
      'versions',
      flags.versions,
      kerberos ? KERBEROS_VERSIONS : all ? ALL_VERSIONS : base.versions,
      ALL_VERSIONS,
    ).sort((a, b) => ALL_VERSIONS.indexOf(a) - ALL_VERSIONS.indexOf(b)),
    jvmWarmupMs: secondsFlagMs(name, 'jvm-warmup', flags['jvm-warmup'], base.jvmWarmupMs, {
      min: 0,
      max: 3600,
    }),
    zkWarmupMs: secondsFlagMs(name, 'zk-warmup', flags['zk-warmup'], base.zkWarmupMs, { min: 0, max: 3600 }),
    seqNumBatchSize: integerFlag(name, 'batch-size', flags['batch-size'], base.seqNumBatchSize, {
      min: 1,
      max: 1_000_000,
    }),
    // The trivial route is the matrix's ceiling; no figure of the Kerberos table reads it.
    baseline: !flags['no-baseline'] && !kerberos,
    requestTimeoutMs: base.requestTimeoutMs,
    // A Kerberos run has no quorum pass or sweep, in `all` neither.
    zookeeper: parseKmsZooKeeperFlags(name, flags, all && !kerberos, quick),
    auth,
    creationAuth: listFlag(name, 'creation-auth', flags['creation-auth'], base.creationAuth, CREATION_AUTHS),
    instances,
    profileFleet: flags['profile-fleet'] === true,
  };
}
