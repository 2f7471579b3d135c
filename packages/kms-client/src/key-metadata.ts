/**
 * Metadata of a key (`Metadata` JSON of `_metadata` and `keys/metadata`).
 *
 * @example
 * ```ts
 * const meta = await kms.getMetadata('k1');
 * if (meta) console.log(`${meta.name}: ${meta.cipher}, ${meta.length} bits, ${meta.versions} versions`);
 * ```
 */
export interface KeyMetadata {
  /** Key name. */
  readonly name: string;
  /** Cipher, e.g. `AES/CTR/NoPadding`. */
  readonly cipher: string;
  /** Key length in bits. */
  readonly length: number;
  /** Free text given at creation, or `null`. */
  readonly description: string | null;
  /** Attributes given at creation (the server may add `key.acl.name`). */
  readonly attributes: Readonly<Record<string, string>>;
  /** Creation time, epoch milliseconds. */
  readonly created: number;
  /** Number of versions; the current one is `<name>@<versions - 1>`. */
  readonly versions: number;
}
