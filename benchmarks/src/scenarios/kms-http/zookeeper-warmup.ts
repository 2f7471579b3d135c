import {
  closeZooKeeperClient,
  connectZooKeeper,
  zkCreate,
  zkMkdirp,
  zkRemove,
} from '@fastpath/zookeeper-fixture';
import { groupsCpuSeconds } from '../../harness/process-cpu.js';

/**
 * How ZooKeeper is warmed before a case. A fresh ZooKeeper JVM is still compiling its request
 * path for tens of seconds (its CPU per creation halves between 3 s and 20 s of load), so a case
 * that starts on a cold one measures the JIT, and the version that creates most measures it most.
 */
export interface ZooKeeperWarmupOptions {
  /** Creations between two CPU readings (each chunk is deleted again right after). */
  chunkCreations: number;
  /**
   * A batch (one per-create figure) runs chunks until ZooKeeper has used at least this much CPU:
   * /proc counts 10 ms ticks, so 300 ms bounds the reading's quantization to about 3%.
   */
  minBatchCpuMs: number;
  /** Creations (and deletions) in flight at once. */
  inFlight: number;
  /** Settled when this many consecutive batches agree... */
  settleBatches: number;
  /** ...within this fraction: (max − min) / min of their per-create CPU. */
  settleTolerance: number;
  /** Stop after this long even when the per-create CPU has not settled (it is recorded so); 0: no warm-up. */
  maxDurationMs: number;
  /** Bytes of data per scratch znode: about what a delegation-token znode holds. */
  dataBytes: number;
}

export const DEFAULT_ZOOKEEPER_WARMUP_OPTIONS: Readonly<ZooKeeperWarmupOptions> = Object.freeze({
  chunkCreations: 250,
  minBatchCpuMs: 300,
  inFlight: 32,
  settleBatches: 3,
  settleTolerance: 0.1,
  maxDurationMs: 20_000,
  dataBytes: 160,
});

/** What the warm-up did, as the case JSON records it. */
export interface ZooKeeperWarmupRecord {
  /** The rule: settle when `settleBatches` batches agree within `settleTolerance`, at most `maxDurationMs`. */
  rule: { minBatchCpuMs: number; settleBatches: number; settleTolerance: number; maxDurationMs: number };
  scratchPath: string;
  creations: number;
  durationMs: number;
  /** ZooKeeper CPU µs per creation of each batch, in order (its deletions included: one create + one delete). */
  perCreateCpuUs: number[];
  /** Creations of each batch, in order. */
  batchCreations: number[];
  perCreateCpuUsAtStart: number | null;
  perCreateCpuUsAtEnd: number | null;
  settled: boolean;
  /** The scratch path and everything under it were deleted before the KMS started. */
  scratchDeleted: boolean;
}

/**
 * The settle rule: the last `settleBatches` per-create figures lie within `settleTolerance` of
 * each other ((max − min) / min). A JIT that is still improving lowers each batch by more than
 * that; one that has finished leaves only the noise.
 */
export function hasSettled(
  perCreateCpuUs: readonly number[],
  rule: Pick<ZooKeeperWarmupOptions, 'settleBatches' | 'settleTolerance'>,
): boolean {
  if (rule.settleBatches < 2 || perCreateCpuUs.length < rule.settleBatches) return false;
  const last = perCreateCpuUs.slice(-rule.settleBatches);
  const min = Math.min(...last);
  const max = Math.max(...last);
  if (!(min > 0)) return false; // no CPU read (no /proc, or too few ticks): never "settled" by accident
  return (max - min) / min <= rule.settleTolerance;
}

const SCRATCH_PATH = '/fastpath-bench-warmup';

/**
 * Warms the ZooKeeper at `connectString` (whose JVMs are `zookeeperPids`) with creations under a
 * scratch path until its CPU per creation settles or `maxDurationMs` passes. Each chunk of
 * creations is deleted right after it (the tree stays small, and the delete path warms too), the
 * scratch path at the end, so the KMS starts on an empty tree. The figure per batch is ZooKeeper's
 * CPU over its creations and their deletions, per creation. Every version gets the same warm-up,
 * before its server exists.
 */
export async function warmZooKeeper(
  connectString: string,
  zookeeperPids: readonly number[],
  options: ZooKeeperWarmupOptions = DEFAULT_ZOOKEEPER_WARMUP_OPTIONS,
): Promise<ZooKeeperWarmupRecord> {
  const record: ZooKeeperWarmupRecord = {
    rule: {
      minBatchCpuMs: options.minBatchCpuMs,
      settleBatches: options.settleBatches,
      settleTolerance: options.settleTolerance,
      maxDurationMs: options.maxDurationMs,
    },
    scratchPath: SCRATCH_PATH,
    creations: 0,
    durationMs: 0,
    perCreateCpuUs: [],
    batchCreations: [],
    perCreateCpuUsAtStart: null,
    perCreateCpuUsAtEnd: null,
    settled: false,
    scratchDeleted: false,
  };
  if (options.maxDurationMs <= 0) return record;
  const client = await connectZooKeeper(connectString);
  try {
    const data = Buffer.alloc(options.dataBytes, 0x5a);
    const cpu = (): number | null => groupsCpuSeconds({ zookeeper: zookeeperPids })['zookeeper'] ?? null;
    const startMs = performance.now();
    await zkMkdirp(client, SCRATCH_PATH);
    const timeLeft = (): boolean => performance.now() - startMs < options.maxDurationMs;
    for (let chunk = 0; timeLeft();) {
      // One batch: chunks of creations, each deleted again, until the CPU used is readable.
      const before = cpu();
      if (before === null) break; // no /proc: nothing to settle on
      let created = 0;
      let used = 0;
      while (used * 1000 < options.minBatchCpuMs && timeLeft()) {
        const paths = Array.from(
          { length: options.chunkCreations },
          (_, i) => `${SCRATCH_PATH}/c${chunk}-${i}`,
        );
        chunk++;
        await inParallel(paths, options.inFlight, (p) => zkCreate(client, p, data));
        await inParallel(paths, options.inFlight, (p) => zkRemove(client, p));
        created += paths.length;
        used = (cpu() ?? before) - before;
      }
      record.creations += created;
      if (used * 1000 < options.minBatchCpuMs) break; // the bound cut the batch short: not a reading
      record.perCreateCpuUs.push((used * 1e6) / created);
      record.batchCreations.push(created);
      if (hasSettled(record.perCreateCpuUs, options)) {
        record.settled = true;
        break;
      }
    }
    await zkRemove(client, SCRATCH_PATH);
    record.scratchDeleted = true;
    record.durationMs = performance.now() - startMs;
    record.perCreateCpuUsAtStart = record.perCreateCpuUs[0] ?? null;
    record.perCreateCpuUsAtEnd = record.perCreateCpuUs[record.perCreateCpuUs.length - 1] ?? null;
    return record;
  } finally {
    await closeZooKeeperClient(client);
  }
}

/** Runs `task` over `items`, at most `limit` at a time; rejects with the first failure. */
async function inParallel<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
