import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Token } from '@fastpath/token-manager';
import type { ZkDelegationTokenSecretManager } from '@fastpath/token-manager/zookeeper';
import { BlockScheduler } from '../../harness/mixed-load/block-scheduler.js';
import { GoodputWindow } from '../../harness/mixed-load/goodput-window.js';
import { seededRandom, type OperationMix } from '../../harness/mixed-load/operation-mix.js';

export interface CaseLoad {
  mix: OperationMix;
  concurrency: number;
  warmupMs: number;
  measureMs: number;
  seed: number;
}

/**
 * One closed-loop run inside this process: `concurrency` callers each verify a cached token or
 * create a new one (persisted to ZooKeeper), in the mix's exact proportions per block of 100.
 * Verification is what the source document protects; creation is the interference.
 *
 * Each caller yields to the event loop between operations, as a server does between requests
 * that arrive over sockets. Without that, verifications of cached tokens settle in microtasks
 * only, the loop never reaches its I/O phase, and ZooKeeper's answers to the creators wait until
 * every caller happens to be creating: the run would measure starvation, not locking.
 */
export async function measureTokenManagerCase(
  manager: ZkDelegationTokenSecretManager,
  tokens: readonly Token[],
  load: CaseLoad,
): Promise<{ window: GoodputWindow; created: number }> {
  const scheduler = new BlockScheduler(load.mix, seededRandom(load.seed));
  const start = performance.now();
  const measureStart = start + load.warmupMs;
  const cutoff = measureStart + load.measureMs;
  const window = new GoodputWindow(measureStart, cutoff);
  let next = 0;
  let created = 0;
  const caller = async (): Promise<void> => {
    while (performance.now() < cutoff) {
      await nextTurn();
      const op = scheduler.next();
      const began = performance.now();
      try {
        if (op === 'verify') {
          await manager.verify(tokens[next++ % tokens.length] as Token);
        } else {
          await manager.createToken({ owner: 'bench', renewer: 'bench' });
          created++;
        }
        window.record(op, true, began, performance.now());
      } catch (error) {
        window.record(
          op,
          false,
          began,
          performance.now(),
          (error as { code?: string }).code ?? String(error),
        );
      }
    }
  };
  await Promise.all(Array.from({ length: load.concurrency }, caller));
  return { window, created };
}
