import { TokenStoreError, TokenStoreUnavailableError } from '../../token-errors.js';
import { ZK_BAD_VERSION, ZK_NO_NODE, type ZkSession } from './zk-session.js';

/**
 * Tokens whose creation failed with an unknown outcome (the connection was lost after the write
 * was sent): ZooKeeper may still apply the write, so their nodes are remembered and deleted once
 * that can be done, so that a creation reported failed never becomes a valid token. They are
 * never cached meanwhile.
 */
export class ZkOrphanCleanup {
  readonly #session: ZkSession;
  readonly #tokenPath: (seq: number) => string;
  readonly #onRemoved: (seq: number) => void;
  readonly #report: (error: unknown) => void;
  /** Sequence number → the bytes this manager tried to write. */
  readonly #orphans = new Map<number, Buffer>();
  #running: Promise<void> | undefined;

  constructor(parts: {
    session: ZkSession;
    tokenPath: (seq: number) => string;
    /** Called for each orphan once it is known gone from ZooKeeper. */
    onRemoved: (seq: number) => void;
    report: (error: unknown) => void;
  }) {
    this.#session = parts.session;
    this.#tokenPath = parts.tokenPath;
    this.#onRemoved = parts.onRemoved;
    this.#report = parts.report;
  }

  get size(): number {
    return this.#orphans.size;
  }

  has(seq: number): boolean {
    return this.#orphans.has(seq);
  }

  /** Remembers a node that may appear although its creation failed. */
  add(seq: number, data: Buffer): void {
    this.#orphans.set(seq, data);
  }

  /** Starts a cleanup pass unless one runs, there is nothing to do, or ZooKeeper is out of reach. */
  schedule(): void {
    if (this.#running || this.#orphans.size === 0 || !this.#session.connected) return;
    this.#running = this.#cleanup()
      .catch((error: unknown) => {
        if (!(error instanceof TokenStoreUnavailableError)) this.#report(error);
      })
      .finally(() => {
        this.#running = undefined;
      });
  }

  /**
   * Deletes the nodes of failed creations that ZooKeeper applied after all, in one multi-operation
   * so the tree never shows part of a failed batch.
   */
  async #cleanup(): Promise<void> {
    const orphans = [...this.#orphans];
    const present: string[] = [];
    for (const [seq, data] of orphans) {
      try {
        const node = await this.#session.getData(this.#tokenPath(seq));
        // Only a node holding exactly what this manager tried to write is one of its own.
        if (node.data.equals(data)) present.push(this.#tokenPath(seq));
      } catch (error) {
        if (!(error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE)) throw error;
      }
    }
    if (present.length > 0) {
      try {
        await this.#session.removeAll(present);
      } catch (error) {
        // Something changed between the reads and the delete: look again at the next heartbeat.
        if (
          error instanceof TokenStoreError &&
          (error.zkCode === ZK_NO_NODE || error.zkCode === ZK_BAD_VERSION)
        )
          return;
        throw error;
      }
    }
    for (const [seq] of orphans) {
      this.#orphans.delete(seq);
      this.#onRemoved(seq);
    }
  }
}
