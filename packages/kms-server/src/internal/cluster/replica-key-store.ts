import type { FastpathError } from '@fastpath/core';
import type { KeyStore } from '../keystore/file-key-store.js';
import {
  deserializeKeyStoreState,
  serializeKeyStoreCommand,
  type KeyStoreCommand,
  type KeyStoreState,
} from '../keystore/keystore-state.js';
import {
  KeystoreError,
  KmsRequestError,
  type KeystoreErrorCode,
  type KmsRequestErrorCode,
} from '../../kms-errors.js';
import type { PrimaryMessage, WorkerMessage } from './cluster-messages.js';

interface Pending {
  resolve(state: KeyStoreState): void;
  reject(error: unknown): void;
}

/** Rebuilds an error the primary reported, keeping its code. */
function remoteError(error: { code: string; message: string }): FastpathError {
  if (error.code.startsWith('ERR_KMS_KEYSTORE_'))
    return new KeystoreError(error.code as KeystoreErrorCode, '', error.message);
  return new KmsRequestError(error.code as KmsRequestErrorCode, error.message);
}

/**
 * A cluster worker's view of the keystore: a copy of the primary's state, kept current by the
 * primary's broadcasts. A change is sent to the primary, which commits it to the file, sends the
 * new state to every worker and waits for their acknowledgements before it answers, so once
 * `apply` resolves every worker serves the new state.
 */
export class ReplicaKeyStore implements KeyStore {
  #state: KeyStoreState;
  #nextId = 1;
  #closed = false;
  readonly #pending = new Map<number, Pending>();
  readonly #send: (message: WorkerMessage) => void;

  constructor(initial: string, send: (message: WorkerMessage) => void) {
    this.#state = deserializeKeyStoreState(Buffer.from(initial, 'base64'));
    this.#send = send;
  }

  get state(): KeyStoreState {
    return this.#state;
  }

  /** Handles a message of the primary; returns whether it was one for this store. */
  receive(message: PrimaryMessage): boolean {
    if (message.t === 'kms:state') {
      if (message.generation > this.#state.generation)
        this.#state = deserializeKeyStoreState(Buffer.from(message.state, 'base64'));
      this.#send({ t: 'kms:ack', generation: message.generation });
      return true;
    }
    if (message.t === 'kms:applied') {
      const pending = this.#pending.get(message.id);
      if (pending === undefined) return true;
      this.#pending.delete(message.id);
      if (message.error) pending.reject(remoteError(message.error));
      else pending.resolve(this.#state);
      return true;
    }
    return false;
  }

  apply(command: KeyStoreCommand): Promise<KeyStoreState> {
    if (this.#closed)
      return Promise.reject(new KeystoreError('ERR_KMS_KEYSTORE_CLOSED', '', 'the keystore is closed'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      try {
        this.#send({ t: 'kms:apply', id, command: serializeKeyStoreCommand(command) });
      } catch (error) {
        this.#pending.delete(id);
        reject(
          new KmsRequestError('ERR_KMS_CLUSTER_UNAVAILABLE', 'the cluster primary cannot be reached', {
            cause: error,
          }),
        );
      }
    });
  }

  /** Fails every change still waiting for the primary (it is gone). */
  primaryLost(): void {
    for (const pending of this.#pending.values()) {
      pending.reject(new KmsRequestError('ERR_KMS_CLUSTER_UNAVAILABLE', 'the cluster primary is gone'));
    }
    this.#pending.clear();
  }

  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }
}
