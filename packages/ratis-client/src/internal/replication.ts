import type { ReplicationLevel } from '../raft-client-options.js';

/** Ratis's `ReplicationLevel` numbers, by name and back. */
export const REPLICATION_NUMBERS: Readonly<Record<ReplicationLevel, number>> = Object.freeze({
  MAJORITY: 0,
  ALL: 1,
  MAJORITY_COMMITTED: 2,
  ALL_COMMITTED: 3,
});

export const REPLICATION_NAMES: readonly ReplicationLevel[] = Object.freeze([
  'MAJORITY',
  'ALL',
  'MAJORITY_COMMITTED',
  'ALL_COMMITTED',
]);
