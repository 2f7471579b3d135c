import { createCipheriv, createDecipheriv, scrypt, timingSafeEqual } from 'node:crypto';
import { open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Redacted } from '@fastpath/core';
import { generateSecureRandom } from '@fastpath/secure-random';
import { KeystoreError } from '../../kms-errors.js';

/** scrypt cost parameters of a keystore (stored in its header). */
export interface ScryptParams {
  /** log2 of the CPU/memory cost N. */
  readonly logN: number;
  /**
   * Block size r, the default 8 (memory per derivation is about 128 * N * r bytes). A keystore
   * whose header holds a value outside 1-32 is refused as corrupt (`ERR_KMS_KEYSTORE_CORRUPT`).
   */
  readonly r: number;
  /** Parallelisation p, the default 1; a header value outside 1-16 is refused as corrupt. */
  readonly p: number;
}

/** Default scrypt cost: N = 2^15, r = 8, p = 1 (about 32 MiB and 0.1 s per derivation). */
export const DEFAULT_SCRYPT_PARAMS: ScryptParams = Object.freeze({ logN: 15, r: 8, p: 1 });

// Limits on parameters read from a file, so a crafted header cannot make the derivation eat
// the machine.
const MAX_LOG_N = 20;
const MAX_R = 32;
const MAX_P = 16;

const MAGIC = Buffer.from('FPKMSKS1', 'latin1');
const FORMAT_VERSION = 1;
const SALT_BYTES = 16;
const CHECK_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const HEADER_BYTES = MAGIC.length + 4 + SALT_BYTES + CHECK_BYTES + IV_BYTES; // authenticated, before the tag
const MIN_FILE_BYTES = HEADER_BYTES + TAG_BYTES;

/** A key derived from the keystore password, with the salt and parameters it was derived with. */
export interface KeystoreKey {
  readonly key: Redacted<Buffer>;
  readonly check: Buffer;
  readonly salt: Buffer;
  readonly params: ScryptParams;
}

function scryptAsync(password: Buffer, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.logN;
  return new Promise((resolve, reject) => {
    scrypt(
      password,
      salt,
      KEY_BYTES + CHECK_BYTES,
      { N, r: params.r, p: params.p, maxmem: 256 * N * params.r + 1024 * 1024 },
      (error, derived) => (error ? reject(error) : resolve(derived)),
    );
  });
}

/**
 * Derives the file key from a password. The first 32 bytes encrypt (AES-256-GCM); the next 16
 * are stored in the header so a wrong password is told apart from a damaged file.
 */
export async function deriveKeystoreKey(
  password: Redacted<Buffer>,
  params: ScryptParams = DEFAULT_SCRYPT_PARAMS,
  salt: Buffer = generateSecureRandom(SALT_BYTES),
): Promise<KeystoreKey> {
  const derived = await scryptAsync(password.unwrap(), salt, params);
  const key = Buffer.from(derived.subarray(0, KEY_BYTES));
  const check = Buffer.from(derived.subarray(KEY_BYTES));
  derived.fill(0);
  return { key: new Redacted(key), check, salt, params };
}

/** Encrypts `plaintext` into the keystore file format under `key`, with a fresh IV. */
export function encodeKeystore(plaintext: Buffer, key: KeystoreKey): Buffer {
  const iv = generateSecureRandom(IV_BYTES);
  const header = Buffer.alloc(HEADER_BYTES);
  let at = MAGIC.copy(header, 0);
  header.writeUInt8(FORMAT_VERSION, at++);
  header.writeUInt8(key.params.logN, at++);
  header.writeUInt8(key.params.r, at++);
  header.writeUInt8(key.params.p, at++);
  at += key.salt.copy(header, at);
  at += key.check.copy(header, at);
  iv.copy(header, at);
  const cipher = createCipheriv('aes-256-gcm', key.key.unwrap(), iv);
  cipher.setAAD(header);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([header, cipher.getAuthTag(), body]);
}

/**
 * Opens a keystore file's bytes with a password: resolves with the plaintext and the derived key
 * (kept to write updates without deriving again). A wrong password is `ERR_KMS_KEYSTORE_PASSWORD`;
 * anything else that does not check out is `ERR_KMS_KEYSTORE_CORRUPT`.
 */
export async function decodeKeystore(
  file: string,
  bytes: Buffer,
  password: Redacted<Buffer>,
): Promise<{ plaintext: Buffer; key: KeystoreKey }> {
  if (bytes.length < MIN_FILE_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new KeystoreError(
      'ERR_KMS_KEYSTORE_CORRUPT',
      file,
      `${file} is not a fastpath KMS keystore (bad header)`,
    );
  }
  let at = MAGIC.length;
  const version = bytes.readUInt8(at++);
  if (version !== FORMAT_VERSION) {
    throw new KeystoreError(
      'ERR_KMS_KEYSTORE_CORRUPT',
      file,
      `${file} has unknown keystore format version ${version}`,
    );
  }
  const params: ScryptParams = {
    logN: bytes.readUInt8(at++),
    r: bytes.readUInt8(at++),
    p: bytes.readUInt8(at++),
  };
  if (
    params.logN < 1 ||
    params.logN > MAX_LOG_N ||
    params.r < 1 ||
    params.r > MAX_R ||
    params.p < 1 ||
    params.p > MAX_P
  ) {
    throw new KeystoreError(
      'ERR_KMS_KEYSTORE_CORRUPT',
      file,
      `${file} has out-of-range key derivation parameters`,
    );
  }
  const salt = Buffer.from(bytes.subarray(at, at + SALT_BYTES));
  at += SALT_BYTES;
  const check = bytes.subarray(at, at + CHECK_BYTES);
  at += CHECK_BYTES;
  const iv = bytes.subarray(at, at + IV_BYTES);
  at += IV_BYTES;
  const tag = bytes.subarray(at, at + TAG_BYTES);
  at += TAG_BYTES;
  const key = await deriveKeystoreKey(password, params, salt);
  if (!timingSafeEqual(key.check, check)) {
    throw new KeystoreError(
      'ERR_KMS_KEYSTORE_PASSWORD',
      file,
      `the password does not open the keystore ${file} (wrong password, or the file header was altered)`,
    );
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key.unwrap(), iv);
    decipher.setAAD(bytes.subarray(0, HEADER_BYTES));
    decipher.setAuthTag(tag);
    const plaintext = Buffer.concat([decipher.update(bytes.subarray(at)), decipher.final()]);
    return { plaintext, key };
  } catch (cause) {
    throw new KeystoreError(
      'ERR_KMS_KEYSTORE_CORRUPT',
      file,
      `the keystore ${file} fails authentication: it was modified or damaged (the password is right)`,
      { cause },
    );
  }
}

const TEMP_MARK = '.tmp-';

/** The name of a temporary file for `file` (same directory, so the rename is atomic). */
function tempName(file: string): string {
  return join(
    dirname(file),
    `.${basename(file)}${TEMP_MARK}${process.pid}-${generateSecureRandom(6).toString('hex')}`,
  );
}

/**
 * Replaces `file` with `bytes` atomically and durably: write a temporary file in the same
 * directory, fsync it, rename it over `file`, fsync the directory. A crash at any point leaves
 * either the old or the new file (plus, at worst, a stray temporary file that
 * {@link removeStaleTempFiles} cleans up).
 */
export async function writeFileAtomic(file: string, bytes: Buffer, mode = 0o600): Promise<void> {
  const temp = tempName(file);
  let renamed = false;
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
    renamed = true;
    await syncDirectory(dirname(file));
  } catch (cause) {
    if (!renamed) await unlink(temp).catch(() => undefined);
    throw new KeystoreError(
      'ERR_KMS_KEYSTORE_IO',
      file,
      `cannot write ${file}: ${(cause as Error).message}`,
      { cause },
    );
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Deletes temporary files a crashed writer of `file` left behind. */
export async function removeStaleTempFiles(file: string): Promise<void> {
  const prefix = `.${basename(file)}${TEMP_MARK}`;
  let names: string[];
  try {
    names = await readdir(dirname(file));
  } catch {
    return;
  }
  await Promise.all(
    names
      .filter((n) => n.startsWith(prefix))
      .map((n) => unlink(join(dirname(file), n)).catch(() => undefined)),
  );
}

/** Reads a file, or `undefined` when it does not exist. */
export async function readFileIfExists(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new KeystoreError('ERR_KMS_KEYSTORE_IO', file, `cannot read ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
