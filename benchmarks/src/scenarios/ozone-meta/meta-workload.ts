// What the scenario and its client processes (fastpath's, and Ozone's Java client's) share: the
// operations, the calls, the answers, the names. Each client process keeps its own round's keys:
// a create window's keys are what the lookup, getFileStatus, rename and delete windows work on.
import type { ProfileFunction, ProfileSummary } from '../../harness/cpu-profile-summary.js';
import type { ClientLogin } from '../ozone-read/cluster-security.js';

/** The operations, one row each, in the order a round runs them (each needs the ones before). */
export const META_OPS = [
  'create-empty',
  'create-1b',
  'lookup',
  'file-status',
  'list',
  'rename',
  'delete',
] as const;
export type MetaOp = (typeof META_OPS)[number];

export const META_OP_LABEL: Readonly<Record<MetaOp, string>> = Object.freeze({
  'create-empty': 'create+commit, empty key',
  'create-1b': 'create+commit, 1-byte key',
  lookup: 'lookup (GetKeyInfo)',
  'file-status': 'getFileStatus',
  list: 'list 1,000 keys',
  rename: 'rename',
  delete: 'delete',
});

export const META_CLIENTS = ['fastpath-rpc', 'fastpath-grpc', 'java'] as const;
export type MetaClient = (typeof META_CLIENTS)[number];

export const META_CLIENT_LABEL: Readonly<Record<MetaClient, string>> = Object.freeze({
  'fastpath-rpc': 'fastpath, Hadoop RPC',
  'fastpath-grpc': 'fastpath, gRPC',
  java: "Ozone's Java client",
});

export const META_VOLUME = 'ozonemeta';
export const META_BUCKET = 'meta';
/** The bucket's layout: Ozone's default, what `ofs://` workloads (Hive, Spark, HBase) use. */
export const META_BUCKET_LAYOUT = 'FILE_SYSTEM_OPTIMIZED';
/** Keys under each client's list prefix, listed whole by every op of the list window. */
export const LIST_KEYS = 1000;

/** Where one client keeps its keys in one round: `<client>/<round>/`. */
export const roundPrefix = (client: MetaClient, round: string): string => `${client}/${round}`;
/** The directory of 1,000 keys one client lists (made once, outside the windows). */
export const listPrefix = (client: MetaClient): string => `${client}/list`;

/** How a client process reaches the OM: one OM by address, or an OM service by its id. */
export interface MetaTarget {
  /** `host:port` (the transport's port) or the OM service id. */
  omAddress: string;
  /** Ozone's keys on top (the transport class, an OM service's nodes; a secure cluster's security keys). */
  properties: Record<string, string>;
  /** On a secure cluster: the Kerberos user the client logs in as from its keytab, and TLS. */
  login?: ClientLogin;
}

export type MetaCall =
  | { op: 'init'; target: MetaTarget; volume: string; bucket: string; listPrefix: string; listKeys: number }
  | { op: 'begin'; prefix: string }
  | {
      op: 'window';
      operation: MetaOp;
      workers: number;
      windowMs: number;
      /** A profiled window (`--profile`): where to write its `.cpuprofile`. */
      profilePath?: string;
    }
  | { op: 'verify' }
  | { op: 'close' };

/** One window of one operation, as the client process measured it. */
export interface WindowSample {
  /** Operations completed (and checked: a lookup found the key, a list found the 1,000 keys). */
  ops: number;
  /** Operations that failed or whose check failed (must be 0). */
  errors: number;
  /** From the window's start to the last operation's end, ms (shorter when a pool of keys ran out). */
  elapsedMs: number;
  /** The client process's CPU over the window, ms. */
  cpuMs: number;
  /**
   * The cluster's CPU (its process and their children) over the window's call, ms: set by the
   * scenario from /proc, not by the client; absent where /proc or the cluster's pid is not known.
   */
  clusterCpuMs?: number;
  /** Each completed operation's time, µs. */
  latenciesUs: number[];
  /** The rename and delete windows stop early when their keys run out. */
  exhausted?: boolean;
  firstError?: string;
  /** A profiled window's CPU by category, over every thread of the client process. */
  profile?: ProfileSummary & { threads: number };
  /** A profiled window's busiest functions by self time (the main thread). */
  topFunctions?: ProfileFunction[];
}

/** What listing a round's keys found against what the round's operations should have left. */
export interface VerifyCounts {
  /** Keys that should exist: created, not renamed away or deleted; renamed keys under the new name. */
  expected: number;
  /** Of those, found by the listing. */
  found: number;
  /** Expected keys the listing did not find. */
  missing: number;
  /** Keys listed that should not be there (a renamed key under its old name, a deleted key). */
  unexpected: number;
  firstProblem?: string;
}

/** The answer to `init`: what the client says of itself. */
export interface InitAnswer {
  /** fastpath's OM transport, or Ozone's version for the Java client. */
  transport: string;
  version?: string;
  layout: string;
}
