// The messages between a key stream's thread and its read workers. A worker opens its own copy
// of a stream the first time a read of that stream reaches it. A copy refused a block token asks
// the stream for new locations, and the stream looks its key up for all its copies.
import type {
  BadReplicaReport,
  KeyBlockLocation,
  KeyInputStreamStats,
  RefusedBlockToken,
} from '../../key-input-stream.js';
import type { WireError } from './read-worker-errors.js';

/** What a worker needs to open its copy of a key stream. */
export interface WorkerStreamSpec {
  blocks: readonly KeyBlockLocation[];
  lengthBytes: number;
  verifyChecksum: boolean;
  windowCacheBytes: number | undefined;
}

export type ToReadWorker =
  | { op: 'open'; stream: number; spec: WorkerStreamSpec }
  | {
      op: 'read';
      id: number;
      stream: number;
      position: number;
      length: number;
      /** Shared memory to read into (the caller's own, or the pool's staging buffer): the worker reads into it directly. */
      shared?: { buffer: SharedArrayBuffer; byteOffset: number };
    }
  | { op: 'unbuffer'; stream: number }
  | { op: 'close'; stream: number }
  | { op: 'shutdown' }
  /** The answer to a worker's `renew`: the key's blocks with their new tokens, or why there are none. */
  | { op: 'renewed'; id: number; blocks: readonly KeyBlockLocation[] }
  | { op: 'renewal-failed'; id: number; error: WireError };

/** The worker's copy of a stream after a read: its counters so far, and the replicas found bad since the last answer. */
export interface WorkerStreamState {
  stats: KeyInputStreamStats;
  cachedBytes: number;
  badReplicas: BadReplicaReport[];
}

export type FromReadWorker =
  | {
      op: 'read';
      id: number;
      /** The bytes read (transferred), unless they went into the caller's shared memory. */
      data: ArrayBuffer | undefined;
      state: WorkerStreamState;
    }
  | { op: 'failed'; id: number; error: WireError; state: WorkerStreamState | undefined }
  /** The worker's copy of `stream` was refused `refused`: new locations wanted (`id`: the worker's own count). */
  | { op: 'renew'; id: number; stream: number; refused: RefusedBlockToken };
