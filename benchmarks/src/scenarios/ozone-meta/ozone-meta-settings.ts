import {
  BenchmarkUsageError,
  integerFlag,
  listFlag,
  numberFlag,
  parseScenarioFlags,
} from '../../harness/index.js';
import { SECURITY_FLAG, securityFlag, type SecurityLevel } from '../ozone-read/security-levels.js';
import { DEFAULT_OZONE_CLIENT_CONFIG, type OmGrpcChannel } from '@fastpath/ozone-fs-client';
import { META_OPS, type MetaClient, type MetaOp } from './meta-workload.js';

const OM_GRPC_CHANNELS: readonly OmGrpcChannel[] = ['http2', 'socket', 'grpc-js'];

/** embedded: fastpath's mini cluster; real: Apache Ozone's MiniOzoneCluster, one OM; real-ha: three OMs. */
export const META_CLUSTER_KINDS = ['embedded', 'real', 'real-ha'] as const;
export type MetaClusterKind = (typeof META_CLUSTER_KINDS)[number];

const CREATES: readonly MetaOp[] = ['create-empty', 'create-1b'];

export interface OzoneMetaSettings {
  cluster: MetaClusterKind;
  /** The rows, in the order every round runs them. */
  ops: MetaOp[];
  /** The clients (columns): fastpath over each OM transport, and Ozone's Java client on a real cluster. */
  clients: MetaClient[];
  /** Concurrent operations per client (threads in Java, async workers on fastpath's one client). */
  workers: number;
  /** Each operation's measured window per client and round. */
  windowMs: number;
  /** An unmeasured round of every operation per client first, with windows this long (0: none). */
  warmupMs: number;
  /** Measured rounds; the clients take turns going first, operation by operation. */
  rounds: number;
  datanodes: number;
  /** The security levels, a cluster each, in this order (`none` alone unless `--security` says more). */
  security: SecurityLevel[];
  /**
   * After the measured rounds, one more window of every operation per fastpath client and level
   * under V8's profiler, in no measured figure: where each client's CPU per operation goes.
   */
  profile: boolean;
  /** `ozone.client.om.grpc.channel` of fastpath's gRPC client; undefined: the client's default. */
  omGrpcChannel: OmGrpcChannel | undefined;
}

export const OZONE_META_FLAGS = {
  cluster: {
    type: 'string',
    value: '<kind>',
    description:
      "embedded (fastpath's mini cluster in its own process, fastpath's two transports; default), real (Apache Ozone MiniOzoneCluster, one OM, Ozone's Java client beside fastpath's) or real-ha (three OMs, every client through the service id)",
  },
  ops: {
    type: 'string',
    value: '<list>',
    description: `operations (default ${META_OPS.join(',')}); the creates come along with any that needs keys`,
  },
  workers: { type: 'string', value: '<n>', description: 'concurrent operations per client (default 16)' },
  'window-seconds': {
    type: 'string',
    value: '<s>',
    description: 'measured window of each operation per client and round (default 10; --quick 2)',
  },
  'warmup-seconds': {
    type: 'string',
    value: '<s>',
    description: 'window of the unmeasured warm-up round; 0 for none (default 2; --quick 0.5)',
  },
  rounds: { type: 'string', value: '<n>', description: 'measured rounds (default 3; --quick 1)' },
  'no-java': {
    type: 'boolean',
    description: "with a real cluster: fastpath's transports only, no Ozone's Java client",
  },
  security: SECURITY_FLAG,
  'om-grpc-channel': {
    type: 'string',
    value: '<channel>',
    description: `the session fastpath's gRPC client's OM calls take (ozone.client.om.grpc.channel): ${OM_GRPC_CHANNELS.join(', ')} (default: the client's, ${DEFAULT_OZONE_CLIENT_CONFIG.omGrpcChannel})`,
  },
  profile: {
    type: 'boolean',
    description:
      "after the measured rounds, a window of every operation per fastpath client and level under V8's profiler (not measured): its CPU per operation by category and its busiest functions, and the .cpuprofile files",
  },
} as const;

export function parseOzoneMetaFlags(args: readonly string[], quick: boolean): OzoneMetaSettings {
  const name = 'ozone-meta';
  const f = parseScenarioFlags(name, args, OZONE_META_FLAGS);
  const kinds = listFlag(name, 'cluster', f.cluster, ['embedded'], META_CLUSTER_KINDS);
  if (kinds.length !== 1)
    throw new BenchmarkUsageError(`${name}: --cluster takes one of ${META_CLUSTER_KINDS.join(', ')}`);
  const cluster = kinds[0]!;
  if (cluster === 'embedded' && f['no-java'])
    throw new BenchmarkUsageError(
      `${name}: --no-java goes with a real cluster (the embedded run has no Java)`,
    );
  const ops = listFlag(name, 'ops', f.ops, [...META_OPS], META_OPS);
  // The lookups, stats, renames and deletes work on the keys the create windows made: those come
  // along. A round's operations run in the order each needs.
  if (ops.some((op) => !CREATES.includes(op) && op !== 'list'))
    for (const op of CREATES) if (!ops.includes(op)) ops.push(op);
  ops.sort((a, b) => META_OPS.indexOf(a) - META_OPS.indexOf(b));
  const java = cluster !== 'embedded' && !f['no-java'];
  return {
    cluster,
    ops,
    clients: java ? ['fastpath-rpc', 'fastpath-grpc', 'java'] : ['fastpath-rpc', 'fastpath-grpc'],
    workers: integerFlag(name, 'workers', f.workers, 16, { min: 1, max: 256 }),
    windowMs:
      numberFlag(name, 'window-seconds', f['window-seconds'], quick ? 2 : 10, { min: 0.1, max: 600 }) * 1000,
    warmupMs:
      numberFlag(name, 'warmup-seconds', f['warmup-seconds'], quick ? 0.5 : 2, { min: 0, max: 600 }) * 1000,
    rounds: integerFlag(name, 'rounds', f.rounds, quick ? 1 : 3, { min: 1, max: 100 }),
    datanodes: 3,
    security: securityFlag(name, f.security, cluster),
    profile: f.profile === true,
    omGrpcChannel:
      f['om-grpc-channel'] === undefined
        ? undefined
        : listFlag(name, 'om-grpc-channel', f['om-grpc-channel'], [], OM_GRPC_CHANNELS)[0],
  };
}

/**
 * The clients of one level: every client on today's cluster; on a secure one fastpath over
 * Hadoop RPC and Java's, since a secure OM speaks SASL on its Hadoop RPC port only (its gRPC
 * port has no Kerberos, so fastpath's gRPC transport has nothing to log in with).
 */
export function levelClients(s: Pick<OzoneMetaSettings, 'clients'>, level: SecurityLevel): MetaClient[] {
  return level === 'none' ? [...s.clients] : s.clients.filter((c) => c !== 'fastpath-grpc');
}

/**
 * Cluster start, the clients, the 1,000 keys each lists: about this long before the first window
 * of a level (a secure cluster makes its principals and its CA first).
 */
export function setupMs(
  s: Pick<OzoneMetaSettings, 'cluster' | 'clients'>,
  level: SecurityLevel = 'none',
): number {
  const cluster = s.cluster === 'embedded' ? 10_000 : s.cluster === 'real' ? 90_000 : 150_000;
  return cluster + (level === 'none' ? 0 : 30_000) + levelClients(s, level).length * 8_000;
}

/** One client's round: its windows, and the listing that checks the round's keys. */
export function roundMs(s: Pick<OzoneMetaSettings, 'ops'>, windowMs: number): number {
  return s.ops.length * (windowMs + 300) + 2_000;
}

/** About how long one level takes, in ms. */
export function levelRunMs(s: OzoneMetaSettings, level: SecurityLevel): number {
  const warmup = s.warmupMs > 0 ? roundMs(s, s.warmupMs) : 0;
  const profiled = s.profile ? profiledClients(s, level).length * roundMs(s, s.windowMs) : 0;
  return (
    setupMs(s, level) +
    levelClients(s, level).length * (warmup + s.rounds * roundMs(s, s.windowMs)) +
    profiled
  );
}

/** The clients `--profile` profiles at a level: fastpath's (Java's CPU is its JVM's, not V8's). */
export function profiledClients(s: Pick<OzoneMetaSettings, 'clients'>, level: SecurityLevel): MetaClient[] {
  return levelClients(s, level).filter((c) => c !== 'java');
}

/** About how long a whole run takes, in ms: every level in turn. */
export function estimateRunMs(s: OzoneMetaSettings): number {
  return s.security.reduce((ms, level) => ms + levelRunMs(s, level), 0);
}
