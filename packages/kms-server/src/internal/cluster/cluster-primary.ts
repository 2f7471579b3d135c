import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { FastpathError, type Redacted } from '@fastpath/core';
import type { FileKeyStore } from '../keystore/file-key-store.js';
import {
  deserializeKeyStoreCommand,
  serializeKeyStoreState,
  type KeyStoreState,
} from '../keystore/keystore-state.js';
import type { KmsLogger } from '../kms-logger.js';
import { WORKER_ENV, isKmsMessage, type PrimaryMessage, type WorkerMessage } from './cluster-messages.js';

/** Options of {@link runClusterPrimary}. */
export interface ClusterPrimaryOptions {
  workers: number;
  /** The keystore, owned by the primary: workers hold copies. */
  store: FileKeyStore;
  /** The cookie secret every worker signs with, so a cookie from one is accepted by all. */
  signatureSecret: Redacted<Buffer>;
  logger: KmsLogger;
  shutdownTimeoutMs: number;
}

/** A running cluster. */
export interface ClusterPrimary {
  /** `http(s)://host:port` the workers share. */
  readonly url: string;
  /** Stops every worker gracefully, then closes the keystore. Idempotent. */
  stop(): Promise<void>;
  /** Settles when the cluster ended (stopped, or failed for good). */
  readonly done: Promise<void>;
}

const ACK_TIMEOUT_MS = 5000;
const COLLECT_TIMEOUT_MS = 5000;
const MAX_RESTARTS_PER_MINUTE = 10;

/**
 * The primary of `--workers N`: forks N workers that share one port (node:cluster), owns the
 * keystore file, applies the workers' key changes one at a time, and broadcasts each committed
 * state, answering the worker only once every live worker has it. Aggregates the workers'
 * metrics for `/metrics`. Restarts a worker that dies; stops them all gracefully on `stop()`.
 * Resolves once every worker listens; rejects if a worker fails before that.
 */
export function runClusterPrimary(options: ClusterPrimaryOptions): Promise<ClusterPrimary> {
  const { store, logger } = options;
  const live = new Map<number, Worker>();
  const listening = new Set<number>();
  const acks = new Map<number, { waiting: Set<number>; done: () => void }>();
  const collections = new Map<number, { results: unknown[]; waiting: Set<number>; done: () => void }>();
  let nextId = 1;
  let stopping = false;
  let started = false;
  let url = '';
  const restarts: number[] = [];
  let resolveDone!: () => void;
  let allListening: (() => void) | undefined;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));

  const send = (worker: Worker, message: PrimaryMessage): void => {
    if (worker.isConnected()) worker.send(message);
  };
  const stateText = (state: KeyStoreState): string => {
    const plaintext = serializeKeyStoreState(state);
    try {
      return plaintext.toString('base64');
    } finally {
      plaintext.fill(0);
    }
  };

  /** Sends the committed state to every live worker and waits (bounded) for their acknowledgements. */
  const broadcast = (state: KeyStoreState): Promise<void> => {
    const text = stateText(state);
    const waiting = new Set<number>();
    for (const [id, worker] of live) {
      if (!worker.isConnected()) continue;
      waiting.add(id);
      send(worker, { t: 'kms:state', state: text, generation: state.generation });
    }
    if (waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        logger.warn(
          `workers ${[...waiting].join(', ')} did not acknowledge keystore generation ${state.generation} in time`,
        );
        acks.delete(state.generation);
        resolve();
      }, ACK_TIMEOUT_MS);
      const existing = acks.get(state.generation);
      const doneFn = (): void => {
        clearTimeout(timer);
        resolve();
      };
      if (existing) {
        for (const id of waiting) existing.waiting.add(id);
        const previous = existing.done;
        existing.done = () => {
          previous();
          doneFn();
        };
      } else {
        acks.set(state.generation, { waiting, done: doneFn });
      }
    });
  };

  const acknowledge = (workerId: number, generation: number): void => {
    for (const [g, entry] of acks) {
      if (g > generation) continue;
      entry.waiting.delete(workerId);
      if (entry.waiting.size === 0) {
        acks.delete(g);
        entry.done();
      }
    }
  };

  const collectMetrics = async (): Promise<{ contentType: string; text: string }> => {
    const id = nextId++;
    const results: unknown[] = [];
    const waiting = new Set<number>();
    for (const [workerId, worker] of live) {
      if (!worker.isConnected()) continue;
      waiting.add(workerId);
      send(worker, { t: 'kms:collect', id });
    }
    await new Promise<void>((resolve) => {
      if (waiting.size === 0) return resolve();
      const timer = setTimeout(() => {
        collections.delete(id);
        resolve();
      }, COLLECT_TIMEOUT_MS);
      collections.set(id, {
        results,
        waiting,
        done: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
    const registry = AggregatorRegistry.aggregate(
      results as Parameters<typeof AggregatorRegistry.aggregate>[0],
    );
    return { contentType: registry.contentType, text: await registry.metrics() };
  };

  const onMessage = (worker: Worker, message: WorkerMessage): void => {
    switch (message.t) {
      case 'kms:hello':
        send(worker, {
          t: 'kms:init',
          state: stateText(store.state),
          signatureSecret: options.signatureSecret.unwrap().toString('base64'),
        });
        return;
      case 'kms:apply':
        store
          .apply(deserializeKeyStoreCommand(message.command))
          .then(async (state) => {
            await broadcast(state);
            send(worker, { t: 'kms:applied', id: message.id });
          })
          .catch((error: unknown) => {
            const code = error instanceof FastpathError ? error.code : 'ERR_KMS_INTERNAL';
            const text = error instanceof FastpathError ? error.message : 'keystore update failed';
            if (!(error instanceof FastpathError)) logger.error('keystore update failed', error);
            send(worker, { t: 'kms:applied', id: message.id, error: { code, message: text } });
          });
        return;
      case 'kms:ack':
        acknowledge(worker.id, message.generation);
        return;
      case 'kms:listening':
        listening.add(worker.id);
        if (url === '') url = message.url;
        if (!started && listening.size >= options.workers) {
          started = true;
          allListening?.();
        }
        return;
      case 'kms:metrics':
        collectMetrics()
          .then((m) =>
            send(worker, {
              t: 'kms:metrics-result',
              id: message.id,
              contentType: m.contentType,
              text: m.text,
            }),
          )
          .catch((error: unknown) =>
            send(worker, { t: 'kms:metrics-result', id: message.id, error: String(error) }),
          );
        return;
      case 'kms:collected': {
        const entry = collections.get(message.id);
        if (!entry) return;
        entry.results.push(message.metrics);
        entry.waiting.delete(worker.id);
        if (entry.waiting.size === 0) {
          collections.delete(message.id);
          entry.done();
        }
        return;
      }
    }
  };

  const fork = (): Worker => {
    const worker = cluster.fork({ [WORKER_ENV]: '1' });
    live.set(worker.id, worker);
    worker.on('message', (message: unknown) => {
      if (isKmsMessage(message)) onMessage(worker, message as WorkerMessage);
    });
    return worker;
  };

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      stopping = true;
      const exits = [...live.values()].map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once('exit', () => resolve());
            send(worker, { t: 'kms:shutdown' });
            const timer = setTimeout(() => worker.process.kill('SIGKILL'), options.shutdownTimeoutMs + 5000);
            timer.unref();
            worker.once('exit', () => clearTimeout(timer));
          }),
      );
      await Promise.all(exits);
      await store.close();
      resolveDone();
    })();
    return stopped;
  };

  return new Promise<ClusterPrimary>((resolve, reject) => {
    cluster.on('exit', (worker, code, signal) => {
      live.delete(worker.id);
      listening.delete(worker.id);
      acknowledge(worker.id, Number.MAX_SAFE_INTEGER);
      for (const [id, entry] of collections) {
        if (entry.waiting.delete(worker.id) && entry.waiting.size === 0) {
          collections.delete(id);
          entry.done();
        }
      }
      if (stopping) return;
      if (!started) {
        logger.error(`worker ${worker.id} exited during start (${signal ?? `code ${code}`})`);
        void stop().then(() => reject(new Error('a KMS worker failed to start; see its messages above')));
        return;
      }
      if (code === 0 && signal === null) return;
      const now = Date.now();
      restarts.push(now);
      while (restarts.length > 0 && (restarts[0] as number) < now - 60_000) restarts.shift();
      if (restarts.length > MAX_RESTARTS_PER_MINUTE) {
        logger.error(`workers keep dying (${restarts.length} in a minute): stopping the KMS`);
        void stop();
        return;
      }
      logger.warn(`worker ${worker.id} died (${signal ?? `code ${code}`}): starting a new one`);
      fork();
    });
    allListening = () => resolve({ url, stop, done });
    for (let i = 0; i < options.workers; i++) fork();
  });
}
