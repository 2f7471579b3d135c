import { existsSync } from 'node:fs';
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Redacted } from '@fastpath/core';
import { generateSecureRandom } from '@fastpath/secure-random';
import { KeystoreError, KmsConfigError } from '../../kms-errors.js';

/** Name of the password file the embedded default creates in the data directory. */
export const GENERATED_PASSWORD_FILE = 'kms.keystore.password';

/** Where the keystore password came from. */
export type KeystorePasswordSource = 'given' | 'file' | 'generated-file' | 'generated';

/** Options of {@link resolveKeystorePassword}. */
export interface KeystorePasswordOptions {
  /** The password itself (from `FASTPATH_KMS_KEYSTORE_PASSWORD` or the options). */
  password?: Redacted<string> | undefined;
  /** A file holding the password (one trailing newline is ignored). */
  passwordFile?: string | undefined;
  /** The data directory, home of the generated password file. */
  dataDir: string;
  /** The keystore file (a generated password is only made for a keystore that does not exist yet). */
  keystoreFile: string;
}

/**
 * Finds the keystore password: given directly, else read from the password file, else the
 * embedded default: the password file `kms.keystore.password` in the data directory, created
 * with a random password (32 random bytes, base64url) and mode 0600 when neither it nor the
 * keystore exists yet. Never an empty or fixed password.
 *
 * @example
 * ```ts
 * const { password, source, file } = await resolveKeystorePassword({ dataDir, keystoreFile });
 * if (source === 'generated') log.info(`created the keystore password file ${file}`);
 * ```
 */
export async function resolveKeystorePassword(options: KeystorePasswordOptions): Promise<{
  password: Redacted<Buffer>;
  source: KeystorePasswordSource;
  file: string | undefined;
  warning?: string;
}> {
  if (options.password !== undefined) {
    const value = options.password.unwrap();
    if (value.length === 0)
      throw new KmsConfigError('FASTPATH_KMS_KEYSTORE_PASSWORD', 'the keystore password is empty');
    return { password: new Redacted(Buffer.from(value, 'utf8')), source: 'given', file: undefined };
  }
  if (options.passwordFile !== undefined) {
    return {
      password: await readPasswordFile(options.passwordFile, 'fastpath.kms.keystore.password.file'),
      source: 'file',
      file: options.passwordFile,
    };
  }
  const generatedFile = join(options.dataDir, GENERATED_PASSWORD_FILE);
  if (existsSync(generatedFile)) {
    const mode = (await stat(generatedFile)).mode & 0o777;
    const warning =
      (mode & 0o077) !== 0
        ? `the keystore password file ${generatedFile} is readable by others (mode ${mode.toString(8)}); run chmod 600 on it`
        : undefined;
    return {
      password: await readPasswordFile(generatedFile, GENERATED_PASSWORD_FILE),
      source: 'generated-file',
      file: generatedFile,
      ...(warning ? { warning } : {}),
    };
  }
  if (existsSync(options.keystoreFile)) {
    throw new KeystoreError(
      'ERR_KMS_KEYSTORE_PASSWORD',
      options.keystoreFile,
      `the keystore ${options.keystoreFile} exists but no password was given: use --keystore-password-file or FASTPATH_KMS_KEYSTORE_PASSWORD`,
    );
  }
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const secret = generateSecureRandom(32).toString('base64url');
  const handle = await open(generatedFile, 'wx', 0o600);
  try {
    await handle.writeFile(`${secret}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { password: new Redacted(Buffer.from(secret, 'utf8')), source: 'generated', file: generatedFile };
}

/** Reads a password file: its content without one trailing newline; empty is refused. */
export async function readPasswordFile(file: string, property: string): Promise<Redacted<Buffer>> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (cause) {
    throw new KmsConfigError(
      property,
      `cannot read the keystore password file ${file}: ${(cause as Error).message}`,
      { cause },
    );
  }
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === 0x0a) end--;
  if (end > 0 && bytes[end - 1] === 0x0d) end--;
  if (end === 0) throw new KmsConfigError(property, `the keystore password file ${file} is empty`);
  const password = Buffer.from(bytes.subarray(0, end));
  bytes.fill(0);
  return new Redacted(password);
}
