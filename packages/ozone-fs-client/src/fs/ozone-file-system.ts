// The ofs:// and o3fs:// file systems (BasicRootedOzoneFileSystem / BasicOzoneFileSystem
// analogues) over fastpath's Ozone client. Each instance has its own client and so its own
// configuration, which is what makes setVerifyChecksum per instance (HDDS-16783): every stream
// captures the instance's flag when it is opened.
import type { OzoneSecurityOptions } from '../internal/om/om-sasl.js';
import { posix } from 'node:path';
import { InvalidOptionError } from '@fastpath/core';
import {
  OzoneClient,
  type ClientTlsOptions,
  type CreateKeyOptions,
  type OzoneFileStatus,
} from '../ozone-client.js';
import type { OzoneClientConfig } from '../ozone-client-config.js';
import { OmStatusError, OzoneClosedError } from '../ozone-errors.js';
import type { KeyOutputStream } from '../key-output-stream.js';
import type { FileStatus } from './file-status.js';
import {
  FileAlreadyExistsError,
  FileNotFoundError,
  InvalidPathError,
  ParentNotDirectoryError,
  PathIsNotEmptyDirectoryError,
  UnsupportedOperationError,
} from './file-system-errors.js';
import { OzoneFSInputStream } from './fs-input-stream.js';
import {
  authorityText,
  normalizePath,
  parseOzoneUri,
  pathOfKey,
  splitOzonePath,
  type OzoneFsAuthority,
  type OzonePathParts,
} from './ozone-path.js';

/** Options of a file-system instance. */
export interface OzoneFileSystemOptions {
  /** The user the OM sees. Default: the OS user. */
  userName?: string;
  /**
   * Hadoop-style properties under Ozone's keys (e.g. from ozone-site.xml): the client settings,
   * `ozone.client.verify.checksum` (the default of `getVerifyChecksum()`), `ozone.om.address`
   * (the OM when the URI names none), the OM HA keys (a URI's authority that is a service id of
   * `ozone.om.service.ids`), `ozone.fs.listing.page.size`. Default: none.
   */
  properties?: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  /** Client settings that override `properties`. */
  config?: Partial<OzoneClientConfig>;
  /** TLS for the OM and datanode channels of this instance's client. Default: plaintext. */
  tls?: ClientTlsOptions;
  /** How the client logs in to a secure OM (Kerberos, delegation tokens): see `OzoneClientOptions.security`. */
  security?: OzoneSecurityOptions;
  /** Directory that relative paths resolve against. Default: '/'. */
  workingDirectory?: string;
}

/** The defaults of {@link OzoneFileSystemOptions} and of the file-system settings read from `properties`. */
export const DEFAULT_OZONE_FILE_SYSTEM_OPTIONS = Object.freeze({
  /** `workingDirectory`: relative paths resolve against the root. */
  workingDirectory: '/',
  /** `ozone.fs.listing.page.size`: entries per ListStatus call. */
  listingPageSize: 1024,
});

/** Options of {@link OzoneFileSystem.create}. */
export interface CreateFileOptions extends CreateKeyOptions {
  /** Replace an existing file. Default: true (Hadoop's `create(path)`). */
  overwrite?: boolean;
  /** Create missing parents (and, on ofs, the volume and bucket). Default: true; false is Hadoop's `createNonRecursive`. */
  recursive?: boolean;
}

const NOT_FOUND = new Set([
  'VOLUME_NOT_FOUND',
  'BUCKET_NOT_FOUND',
  'KEY_NOT_FOUND',
  'FILE_NOT_FOUND',
  'DIRECTORY_NOT_FOUND',
]);

function isStatus(err: unknown, ...statuses: string[]): err is OmStatusError {
  return err instanceof OmStatusError && statuses.includes(err.status);
}

function property(properties: OzoneFileSystemOptions['properties'], key: string): string | undefined {
  if (!properties) return undefined;
  // Taken as unknown: `instanceof Map` narrows the properties to Map<any, any>.
  const value: unknown =
    properties instanceof Map ? properties.get(key) : (properties as Readonly<Record<string, string>>)[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A Hadoop-style file system over Ozone. Get one through {@link getFileSystem} (cached per URI
 * and user, like `FileSystem.get`) or {@link newFileSystemInstance} (uncached, like
 * `FileSystem.newInstance`: HBase's no-checksum instance is one).
 */
export class OzoneFileSystem {
  /** `scheme://authority` of this file system. */
  readonly uri: string;
  /** What the URI names; `omHost` is filled from `ozone.om.address` when the URI gave no OM. */
  readonly authority: Readonly<OzoneFsAuthority>;
  /** The user the OM sees for this instance's calls: the `userName` option, else the OS user. */
  readonly userName: string;
  readonly #client: OzoneClient;
  readonly #pageSize: number;
  #verifyChecksum: boolean;
  #workingDirectory: string;
  #closed = false;
  readonly #onClose: (() => void) | undefined;

  /** @internal use getFileSystem / newFileSystemInstance */
  constructor(uri: string, options: OzoneFileSystemOptions = {}, onClose?: () => void) {
    const { authority } = parseOzoneUri(uri);
    let omHost = authority.omHost;
    if (!omHost) {
      // As Ozone's file systems: with OM HA configured, a URI must name the service (or a host).
      if ((property(options.properties, 'ozone.om.service.ids') ?? '').trim() !== '')
        throw new InvalidPathError(
          uri,
          'Service ID or host name must not be omitted when ozone.om.service.ids is defined',
        );
      const configured = property(options.properties, 'ozone.om.address');
      if (!configured) throw new InvalidPathError(uri, 'the URI names no OM and ozone.om.address is not set');
      // ozone.om.address carries the OM's Hadoop RPC port; the gRPC port comes from ozone.om.grpc.port.
      omHost = configured.replace(/:\d+$/, '');
    }
    this.authority = Object.freeze({ ...authority, omHost });
    this.uri = `${authority.scheme}://${authorityText(authority)}`;
    const pageText = property(options.properties, 'ozone.fs.listing.page.size');
    this.#pageSize =
      pageText === undefined ? DEFAULT_OZONE_FILE_SYSTEM_OPTIONS.listingPageSize : Number(pageText);
    if (!Number.isSafeInteger(this.#pageSize) || this.#pageSize < 2)
      throw new InvalidOptionError('ozone.fs.listing.page.size', 'must be an integer of at least 2');
    this.#workingDirectory = normalizePath(
      options.workingDirectory ?? DEFAULT_OZONE_FILE_SYSTEM_OPTIONS.workingDirectory,
    );
    this.#client = new OzoneClient({
      omAddress: omHost,
      ...(options.userName !== undefined ? { userName: options.userName } : {}),
      ...(options.properties !== undefined ? { properties: options.properties } : {}),
      ...(options.config !== undefined ? { config: options.config } : {}),
      ...(options.tls !== undefined ? { tls: options.tls } : {}),
      ...(options.security !== undefined ? { security: options.security } : {}),
    });
    this.userName = options.userName ?? this.#client.userName;
    this.#verifyChecksum = this.#client.config.verifyChecksum;
    this.#onClose = onClose;
  }

  /** The low-level client of this instance (its own OM and datanode channels). */
  get client(): OzoneClient {
    return this.#client;
  }

  /**
   * Whether streams opened from now on verify checksums. Streams already open keep the flag they
   * were opened with; other instances are not affected (Hadoop's `FileSystem#setVerifyChecksum`).
   */
  setVerifyChecksum(verify: boolean): void {
    if (typeof verify !== 'boolean') throw new InvalidOptionError('verify', 'expected a boolean');
    this.#verifyChecksum = verify;
  }

  /** Whether streams opened now verify checksums: `ozone.client.verify.checksum` (default true) until `setVerifyChecksum`. */
  getVerifyChecksum(): boolean {
    return this.#verifyChecksum;
  }

  /** The absolute path relative paths resolve against (no scheme or authority). */
  getWorkingDirectory(): string {
    return this.#workingDirectory;
  }

  /**
   * Sets the directory relative paths resolve against; a relative `path` resolves against the
   * current one. The directory need not exist (nothing is asked of the OM).
   */
  setWorkingDirectory(path: string): void {
    this.#workingDirectory = this.#resolve(path).path;
  }

  /** The full URI of a path of this file system. */
  makeQualified(path: string): string {
    return this.uri + this.#resolve(path).path;
  }

  /** Resolves a URI of this file system or a path (relative ones against the working directory). */
  #resolve(path: string): OzonePathParts {
    let p = path;
    if (typeof path === 'string' && path.includes('://')) {
      const parsed = parseOzoneUri(path);
      if (
        parsed.authority.scheme !== this.authority.scheme ||
        (parsed.authority.omHost && authorityText(parsed.authority) !== authorityText(this.authority))
      )
        throw new InvalidPathError(path, `wrong file system: this one is ${this.uri}`);
      p = parsed.path;
    }
    return splitOzonePath(this.authority, normalizePath(p, this.#workingDirectory));
  }

  #checkOpen(): void {
    if (this.#closed) throw new OzoneClosedError(`the file system ${this.uri}`);
  }

  #status(s: OzoneFileStatus): FileStatus {
    return {
      path: this.uri + pathOfKey(this.authority, s.volume, s.bucket, s.keyName),
      length: s.sizeBytes,
      isDirectory: s.isDirectory,
      isFile: !s.isDirectory,
      blockSize: s.isDirectory ? 0 : s.blockSizeBytes,
      modificationTime: s.modificationTimeMs,
      owner: s.owner,
      replication: s.replication,
    };
  }

  #directoryStatus(path: string, owner: string, modificationTime: number): FileStatus {
    return {
      path: this.uri + path,
      length: 0,
      isDirectory: true,
      isFile: false,
      blockSize: 0,
      modificationTime,
      owner,
      replication: 0,
    };
  }

  async #lookup(parts: OzonePathParts): Promise<FileStatus | undefined> {
    try {
      if (parts.volume === undefined) return this.#directoryStatus('/', this.userName, 0);
      if (parts.bucket === undefined) {
        const v = await this.#client.getVolume(parts.volume);
        return this.#directoryStatus(parts.path, v.owner, v.creationTimeMs);
      }
      if (parts.key === '') {
        const b = await this.#client.getBucket(parts.volume, parts.bucket);
        return this.#directoryStatus(parts.path, this.userName, b.creationTimeMs);
      }
      return this.#status(await this.#client.getFileStatus(parts.volume, parts.bucket, parts.key));
    } catch (err) {
      if (isStatus(err, ...NOT_FOUND)) return undefined;
      throw err;
    }
  }

  /** The status of a file or directory; `FileNotFoundError` when there is none. */
  async getFileStatus(path: string): Promise<FileStatus> {
    this.#checkOpen();
    const parts = this.#resolve(path);
    const status = await this.#lookup(parts);
    if (!status) throw new FileNotFoundError(parts.path);
    return status;
  }

  /** Whether a file or directory is at the path; false (not an error) for a missing volume, bucket or key. */
  async exists(path: string): Promise<boolean> {
    this.#checkOpen();
    return (await this.#lookup(this.#resolve(path))) !== undefined;
  }

  /** Every entry of a directory (a file lists as itself), fetched page by page. */
  async listStatus(path: string): Promise<FileStatus[]> {
    const out: FileStatus[] = [];
    for await (const page of this.listStatusPages(path)) out.push(...page);
    return out;
  }

  /** The entries of a directory one page (`ozone.fs.listing.page.size` entries) at a time. */
  async *listStatusPages(path: string): AsyncGenerator<FileStatus[], void, void> {
    this.#checkOpen();
    const parts = this.#resolve(path);
    const c = this.#client;
    try {
      if (parts.volume === undefined) {
        let startAfter: string | undefined;
        for (;;) {
          const page = await c.listVolumes({
            allUsers: true,
            maxKeys: this.#pageSize,
            ...(startAfter !== undefined ? { startAfter } : {}),
          });
          if (page.length > 0)
            yield page.map((v) => this.#directoryStatus(`/${v.name}`, v.owner, v.creationTimeMs));
          if (page.length < this.#pageSize) return;
          startAfter = page[page.length - 1]?.name;
        }
      }
      const volume = parts.volume;
      if (parts.bucket === undefined) {
        await c.getVolume(volume);
        let startAfter: string | undefined;
        for (;;) {
          const page = await c.listBuckets(volume, {
            count: this.#pageSize,
            ...(startAfter !== undefined ? { startAfter } : {}),
          });
          if (page.length > 0)
            yield page.map((b) =>
              this.#directoryStatus(`/${volume}/${b.name}`, this.userName, b.creationTimeMs),
            );
          if (page.length < this.#pageSize) return;
          startAfter = page[page.length - 1]?.name;
        }
      }
      const bucket = parts.bucket;
      let startKey = '';
      for (;;) {
        const page = await c.listStatus(volume, bucket, parts.key, { startKey, numEntries: this.#pageSize });
        // Ozone's startKey is inclusive: the first entry of a later page repeats the last one.
        const fresh = startKey !== '' && page[0]?.keyName === startKey ? page.slice(1) : page;
        if (fresh.length > 0) yield fresh.map((s) => this.#status(s));
        const last = page[page.length - 1];
        if (page.length < this.#pageSize || fresh.length === 0 || !last) return;
        startKey = last.keyName;
      }
    } catch (err) {
      if (isStatus(err, ...NOT_FOUND))
        throw new FileNotFoundError(parts.path, 'No such file or directory', err);
      throw err;
    }
  }

  async #ensureBucket(parts: OzonePathParts): Promise<void> {
    if (this.authority.scheme === 'o3fs' || parts.volume === undefined || parts.bucket === undefined) return;
    try {
      await this.#client.createVolume(parts.volume);
    } catch (err) {
      if (!isStatus(err, 'VOLUME_ALREADY_EXISTS')) throw err;
    }
    try {
      await this.#client.createBucket(parts.volume, parts.bucket);
    } catch (err) {
      if (!isStatus(err, 'BUCKET_ALREADY_EXISTS')) throw err;
    }
  }

  /** After the OM's FILE_ALREADY_EXISTS: the path itself is a file, or one of its parents is. */
  async #fileInTheWay(parts: OzonePathParts, err: unknown): Promise<Error> {
    const self = await this.#lookup(parts);
    if (self?.isFile) return new FileAlreadyExistsError(parts.path, 'is a file', err);
    let parent = posix.dirname(parts.path);
    while (parent !== '/') {
      const s = await this.#lookup(this.#resolve(parent));
      if (s?.isFile) return new ParentNotDirectoryError(parts.path, parent, err);
      parent = posix.dirname(parent);
    }
    return new FileAlreadyExistsError(parts.path, 'already exists', err);
  }

  /** Makes a directory and its missing parents (on ofs, the volume and bucket too). True when it exists afterwards. */
  async mkdirs(path: string): Promise<boolean> {
    this.#checkOpen();
    const parts = this.#resolve(path);
    if (parts.volume === undefined) return true;
    try {
      if (parts.bucket === undefined) {
        await this.#client.createVolume(parts.volume).catch((err: unknown) => {
          if (!isStatus(err, 'VOLUME_ALREADY_EXISTS')) throw err;
        });
        return true;
      }
      await this.#ensureBucket(parts);
      if (parts.key !== '') await this.#client.createDirectory(parts.volume, parts.bucket, parts.key);
      return true;
    } catch (err) {
      if (isStatus(err, 'FILE_ALREADY_EXISTS')) throw await this.#fileInTheWay(parts, err);
      if (isStatus(err, ...NOT_FOUND))
        throw new FileNotFoundError(parts.path, 'the bucket does not exist', err);
      throw err;
    }
  }

  /** Creates a file for writing; write to the stream and `close()` it to commit. */
  async create(path: string, options: CreateFileOptions = {}): Promise<KeyOutputStream> {
    this.#checkOpen();
    const parts = this.#resolve(path);
    const { overwrite = true, recursive = true, ...keyOptions } = options;
    if (parts.volume === undefined || parts.bucket === undefined || parts.key === '')
      throw new FileAlreadyExistsError(parts.path, 'is a directory (the root, a volume or a bucket)');
    if (recursive) await this.#ensureBucket(parts);
    try {
      return await this.#client.createFile(parts.volume, parts.bucket, parts.key, {
        ...keyOptions,
        overwrite,
        recursive,
      });
    } catch (err) {
      if (isStatus(err, 'FILE_ALREADY_EXISTS')) throw await this.#fileInTheWay(parts, err);
      if (isStatus(err, 'NOT_A_FILE')) throw new FileAlreadyExistsError(parts.path, 'is a directory', err);
      if (isStatus(err, 'DIRECTORY_NOT_FOUND'))
        throw new FileNotFoundError(posix.dirname(parts.path), 'parent directory does not exist', err);
      if (isStatus(err, ...NOT_FOUND))
        throw new FileNotFoundError(parts.path, 'the bucket does not exist', err);
      throw err;
    }
  }

  /**
   * Opens a file for reading. The stream verifies checksums if this instance does now
   * (`getVerifyChecksum()`), and keeps that for its life.
   */
  async open(path: string, options: { windowCacheBytes?: number } = {}): Promise<OzoneFSInputStream> {
    this.#checkOpen();
    const parts = this.#resolve(path);
    if (parts.volume === undefined || parts.bucket === undefined || parts.key === '')
      throw new FileNotFoundError(parts.path, 'is a directory');
    try {
      const key = await this.#client.openKey(parts.volume, parts.bucket, parts.key, {
        verifyChecksum: this.#verifyChecksum,
        ...options,
      });
      return new OzoneFSInputStream(this.uri + parts.path, key);
    } catch (err) {
      if (isStatus(err, ...NOT_FOUND)) throw new FileNotFoundError(parts.path, 'No such file', err);
      throw err;
    }
  }

  /** Deletes a file or directory; false when there was nothing to delete. */
  async delete(path: string, recursive = false): Promise<boolean> {
    this.#checkOpen();
    const parts = this.#resolve(path);
    const c = this.#client;
    if (parts.volume === undefined) return false;
    try {
      if (parts.bucket === undefined) {
        const buckets = await c.listBuckets(parts.volume, { count: 1 });
        if (buckets.length > 0 && !recursive) throw new PathIsNotEmptyDirectoryError(parts.path);
        for await (const page of this.listStatusPages(parts.path))
          for (const b of page) await this.delete(b.path, true);
        await c.deleteVolume(parts.volume);
        return true;
      }
      if (parts.key === '') {
        if (this.authority.scheme === 'o3fs') return false; // the root of an o3fs file system
        await c.getBucket(parts.volume, parts.bucket);
        const entries = await c.listStatus(parts.volume, parts.bucket, '', { numEntries: 2 });
        if (entries.length > 0 && !recursive) throw new PathIsNotEmptyDirectoryError(parts.path);
        for (const e of await this.listStatus(parts.path)) {
          const child = this.#resolve(e.path);
          await c.deleteKey(parts.volume, parts.bucket, child.key, { recursive: true });
        }
        await c.deleteBucket(parts.volume, parts.bucket);
        return true;
      }
      await c.deleteKey(parts.volume, parts.bucket, parts.key, { recursive });
      return true;
    } catch (err) {
      if (isStatus(err, 'DIRECTORY_NOT_EMPTY', 'VOLUME_NOT_EMPTY', 'BUCKET_NOT_EMPTY'))
        throw new PathIsNotEmptyDirectoryError(parts.path, err);
      if (isStatus(err, ...NOT_FOUND)) return false;
      throw err;
    }
  }

  /**
   * Renames a file or directory within its bucket, with Hadoop's rules: onto an existing
   * directory moves the source into it; false when the source is missing, the target exists,
   * the target's parent is not a directory, or the target is under the source.
   */
  async rename(src: string, dst: string): Promise<boolean> {
    this.#checkOpen();
    const s = this.#resolve(src);
    let d = this.#resolve(dst);
    if (s.volume === undefined || s.bucket === undefined || s.key === '')
      throw new UnsupportedOperationError(`${s.path}: the root, volumes and buckets cannot be renamed`);
    if (d.volume !== s.volume || d.bucket !== s.bucket)
      throw new UnsupportedOperationError(`${s.path} → ${d.path}: a rename cannot leave its bucket`);
    const srcStatus = await this.#lookup(s);
    if (!srcStatus) return false;
    if (s.path === d.path) return true;
    const dstStatus = await this.#lookup(d);
    if (dstStatus?.isDirectory) {
      d = this.#resolve(posix.join(d.path, posix.basename(s.path)));
      if (await this.#lookup(d)) return false;
    } else if (dstStatus) return false;
    if (d.path.startsWith(`${s.path}/`)) return false;
    const parent = await this.#lookup(this.#resolve(posix.dirname(d.path)));
    if (!parent?.isDirectory) return false;
    try {
      await this.#client.renameKey(s.volume, s.bucket, s.key, d.key);
      return true;
    } catch (err) {
      if (isStatus(err, 'KEY_ALREADY_EXISTS', ...NOT_FOUND)) return false;
      throw err;
    }
  }

  /** Closes this instance's client; a cached instance leaves the cache. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#client.close();
    this.#onClose?.();
  }

  /** True once `close()` was called; file-system calls on a closed instance throw `ERR_OZONE_CLOSED`. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Same as {@link OzoneFileSystem.close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }
}
