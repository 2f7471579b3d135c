import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Redacted } from '@fastpath/core';
import { Mutex, type MetricsRegistry } from '@fastpath/core';
import { KeystoreError } from '../../kms-errors.js';
import {
  DEFAULT_SCRYPT_PARAMS,
  decodeKeystore,
  deriveKeystoreKey,
  encodeKeystore,
  readFileIfExists,
  removeStaleTempFiles,
  writeFileAtomic,
  type KeystoreKey,
  type ScryptParams,
} from './keystore-file.js';
import { acquireKeystoreLock } from './keystore-lock.js';
import {
  EMPTY_KEYSTORE_STATE,
  applyKeyStoreCommand,
  deserializeKeyStoreState,
  serializeKeyStoreState,
  type KeyStoreCommand,
  type KeyStoreState,
} from './keystore-state.js';

/**
 * Where keys live. Reads are synchronous on an in-memory state; `apply` commits a change and
 * resolves with the new state only once it is durable (or, for a cluster worker, once the
 * process that owns the file committed it).
 */
export interface KeyStore {
  readonly state: KeyStoreState;
  apply(command: KeyStoreCommand): Promise<KeyStoreState>;
  /** Waits for a write in progress, then releases the store. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link FileKeyStore.open}. */
export interface FileKeyStoreOptions {
  /** The keystore file. */
  file: string;
  /** The keystore password. */
  password: Redacted<Buffer>;
  /** Create an empty keystore when the file does not exist. Default: `true`. */
  create?: boolean;
  /** scrypt cost for a new keystore (an existing one keeps its own). Default: {@link DEFAULT_SCRYPT_PARAMS}. */
  scrypt?: ScryptParams;
  /** Where the write lock's wait/hold times go. Default: none. */
  metrics?: MetricsRegistry;
}

/**
 * The keystore file: key material encrypted at rest (AES-256-GCM under a scrypt-derived key),
 * every update written atomically and durably (temp file, fsync, rename, fsync of the
 * directory), one writer at a time, guarded against a second process by a lock file. The
 * in-memory state changes only after the file did.
 *
 * @example
 * ```ts
 * const store = await FileKeyStore.open({ file: '/var/lib/kms/kms.keystore', password });
 * await store.apply({ op: 'delete', name: 'k1' });
 * await store.close();
 * ```
 */
export class FileKeyStore implements KeyStore {
  readonly file: string;
  #state: KeyStoreState;
  #key: KeystoreKey;
  #closed = false;
  readonly #mutex: Mutex;
  readonly #release: () => Promise<void>;
  readonly #listeners = new Set<(state: KeyStoreState) => void>();

  private constructor(
    file: string,
    state: KeyStoreState,
    key: KeystoreKey,
    release: () => Promise<void>,
    mutex: Mutex,
  ) {
    this.file = file;
    this.#state = state;
    this.#key = key;
    this.#release = release;
    this.#mutex = mutex;
  }

  /**
   * Opens (or, with `create`, creates) a keystore. Refuses a wrong password
   * (`ERR_KMS_KEYSTORE_PASSWORD`), a tampered or damaged file (`ERR_KMS_KEYSTORE_CORRUPT`) and a
   * keystore another live process holds (`ERR_KMS_KEYSTORE_LOCKED`).
   */
  static async open(options: FileKeyStoreOptions): Promise<FileKeyStore> {
    const { file, password } = options;
    await mkdir(dirname(file), { recursive: true, mode: 0o700 }).catch((cause: unknown) => {
      throw new KeystoreError(
        'ERR_KMS_KEYSTORE_IO',
        file,
        `cannot create the directory of ${file}: ${(cause as Error).message}`,
        { cause },
      );
    });
    const release = await acquireKeystoreLock(file);
    try {
      await removeStaleTempFiles(file);
      const bytes = await readFileIfExists(file);
      let state: KeyStoreState;
      let key: KeystoreKey;
      if (bytes === undefined) {
        if (options.create === false) {
          throw new KeystoreError('ERR_KMS_KEYSTORE_NOT_FOUND', file, `there is no keystore at ${file}`);
        }
        key = await deriveKeystoreKey(password, options.scrypt ?? DEFAULT_SCRYPT_PARAMS);
        state = EMPTY_KEYSTORE_STATE;
        await writeState(file, state, key);
      } else {
        const opened = await decodeKeystore(file, bytes, password);
        key = opened.key;
        try {
          state = deserializeKeyStoreState(opened.plaintext);
        } catch (cause) {
          throw new KeystoreError(
            'ERR_KMS_KEYSTORE_CORRUPT',
            file,
            `the keystore ${file} has unreadable content`,
            { cause },
          );
        } finally {
          opened.plaintext.fill(0);
        }
      }
      const mutex = new Mutex({ name: 'keystore', ...(options.metrics ? { metrics: options.metrics } : {}) });
      return new FileKeyStore(file, state, key, release, mutex);
    } catch (error) {
      await release();
      throw error;
    }
  }

  get state(): KeyStoreState {
    return this.#state;
  }

  /** Calls `listener` with every newly committed state. Returns the unsubscribe function. */
  onCommit(listener: (state: KeyStoreState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  apply(command: KeyStoreCommand): Promise<KeyStoreState> {
    return this.#exclusive(async () => {
      const next = applyKeyStoreCommand(this.#state, command);
      await writeState(this.file, next, this.#key);
      this.#state = next;
      for (const listener of this.#listeners) listener(next);
      return next;
    });
  }

  /**
   * Re-encrypts the keystore under a new password (new salt, new derived key), atomically.
   *
   * @example
   * ```ts
   * await store.rekey(new Redacted(Buffer.from(newPassword)));
   * ```
   */
  rekey(newPassword: Redacted<Buffer>, scryptParams: ScryptParams = this.#key.params): Promise<void> {
    return this.#exclusive(async () => {
      const key = await deriveKeystoreKey(newPassword, scryptParams);
      await writeState(this.file, this.#state, key);
      this.#key = key;
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Queue behind any write in progress, so closing never cuts one short.
    await this.#mutex.runExclusive(() => undefined);
    this.#listeners.clear();
    await this.#release();
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      return Promise.reject(
        new KeystoreError('ERR_KMS_KEYSTORE_CLOSED', this.file, `the keystore ${this.file} is closed`),
      );
    }
    return this.#mutex.runExclusive(fn);
  }
}

async function writeState(file: string, state: KeyStoreState, key: KeystoreKey): Promise<void> {
  const plaintext = serializeKeyStoreState(state);
  try {
    await writeFileAtomic(file, encodeKeystore(plaintext, key));
  } finally {
    plaintext.fill(0);
  }
}

/**
 * Creates an empty keystore at `file` (the `fastpath-kms keystore create` command). Refuses when
 * one exists (`ERR_KMS_KEYSTORE_EXISTS`).
 */
export async function createKeystore(
  file: string,
  password: Redacted<Buffer>,
  scrypt?: ScryptParams,
): Promise<void> {
  if ((await readFileIfExists(file)) !== undefined) {
    throw new KeystoreError('ERR_KMS_KEYSTORE_EXISTS', file, `a keystore already exists at ${file}`);
  }
  const store = await FileKeyStore.open({ file, password, ...(scrypt ? { scrypt } : {}) });
  await store.close();
}

/**
 * Re-encrypts the keystore at `file` under `newPassword` (the `fastpath-kms keystore rekey`
 * command). Needs the current password; refuses while a server holds the keystore.
 */
export async function rekeyKeystore(
  file: string,
  password: Redacted<Buffer>,
  newPassword: Redacted<Buffer>,
  scrypt?: ScryptParams,
): Promise<void> {
  const store = await FileKeyStore.open({ file, password, create: false });
  try {
    await store.rekey(newPassword, scrypt);
  } finally {
    await store.close();
  }
}
