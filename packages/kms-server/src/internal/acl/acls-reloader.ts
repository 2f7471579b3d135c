import { statSync } from 'node:fs';
import { HadoopConfiguration } from '@fastpath/hadoop-common';
import { withKmsConfigErrors } from '../config/kms-config-errors.js';
import { DEFAULT_KMS_ACLS, KmsAcls } from './kms-acls.js';

/** Options of {@link AclsReloader}. */
export interface AclsReloaderOptions {
  /** `kms-acls.xml`; when it does not exist, {@link DEFAULT_KMS_ACLS} apply until it appears. */
  file: string | undefined;
  /** ACL properties given directly: used instead of the file, never reloaded. */
  inline?: Readonly<Record<string, string>> | undefined;
  /** How often the file is checked, in ms. */
  intervalMs: number;
  /** Environment for `${env.NAME}` substitution. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Called after every successful (re)load, with the warnings of the new ACLs. */
  onLoad?: (acls: KmsAcls, source: string) => void;
  /** Called when a changed file cannot be loaded; the previous ACLs stay in force. */
  onError?: (error: unknown) => void;
}

interface FileStamp {
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly size: number;
  readonly ino: number;
}

function stamp(file: string): FileStamp | undefined {
  try {
    const s = statSync(file);
    return { mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, size: s.size, ino: s.ino };
  } catch {
    return undefined;
  }
}

const same = (a: FileStamp | undefined, b: FileStamp | undefined): boolean =>
  a === b ||
  (a !== undefined &&
    b !== undefined &&
    a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs &&
    a.size === b.size &&
    a.ino === b.ino);

/**
 * Keeps the ACLs in step with `kms-acls.xml` without a restart, like Hadoop's one-second
 * reloader: the file is checked every `intervalMs` and reloaded when it changed (modification
 * time, size or inode, so an editor's rename-into-place counts). A file that does not parse
 * leaves the previous ACLs in force and is reported; at start it is refused.
 *
 * @example
 * ```ts
 * const reloader = new AclsReloader({ file: '/etc/kms/kms-acls.xml', intervalMs: 1000 });
 * reloader.start();
 * reloader.current.hasAccess('CREATE', user);
 * ```
 */
export class AclsReloader {
  #current: KmsAcls;
  #stamp: FileStamp | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #options: AclsReloaderOptions;

  /** Loads the ACLs now; a file that exists but does not parse throws `ERR_KMS_CONFIG`. */
  constructor(options: AclsReloaderOptions) {
    this.#options = options;
    if (options.inline !== undefined) {
      const inline = options.inline;
      this.#current = withKmsConfigErrors(() =>
        KmsAcls.fromConfiguration(
          new HadoopConfiguration(
            Object.entries(inline).map(([k, v]) => [k, { value: v, source: 'options' }] as const),
            options.env,
          ),
        ),
      );
      options.onLoad?.(this.#current, 'options');
      return;
    }
    this.#stamp = options.file === undefined ? undefined : stamp(options.file);
    this.#current = this.#load();
  }

  /** The ACLs in force. */
  get current(): KmsAcls {
    return this.#current;
  }

  start(): void {
    if (this.#options.inline !== undefined || this.#options.file === undefined || this.#timer !== undefined)
      return;
    this.#timer = setInterval(() => this.check(), this.#options.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Reloads now if the file changed. Returns whether new ACLs were installed. */
  check(): boolean {
    const file = this.#options.file;
    if (file === undefined || this.#options.inline !== undefined) return false;
    const now = stamp(file);
    // A deleted file keeps the last ACLs in force (as Hadoop does).
    if (now === undefined || same(now, this.#stamp)) return false;
    try {
      this.#stamp = now;
      this.#current = this.#load();
      return true;
    } catch (error) {
      this.#options.onError?.(error);
      return false;
    }
  }

  #load(): KmsAcls {
    const file = this.#options.file;
    const env = this.#options.env ?? {};
    const fromFile = file !== undefined && this.#stamp !== undefined;
    const acls = withKmsConfigErrors(() =>
      KmsAcls.fromConfiguration(
        fromFile
          ? HadoopConfiguration.fromXmlFile(file, { env })
          : new HadoopConfiguration(
              Object.entries(DEFAULT_KMS_ACLS).map(([k, v]) => [k, { value: v, source: 'default' }] as const),
              env,
            ),
      ),
    );
    this.#options.onLoad?.(acls, fromFile ? file : 'built-in defaults');
    return acls;
  }
}
