import { OzoneError } from './ozone-errors.js';

/**
 * The KMS did not hand out a key's data key (or the OM's KMS did not make one):
 * - `ERR_OZONE_KMS_ACCESS_DENIED`: the KMS refused the caller (its 403: no `DECRYPT_EEK` on the
 *   bucket key, or a blacklist); not retriable.
 * - `ERR_OZONE_KMS_UNREACHABLE`: no KMS of the provider answered (refused, reset, timed out,
 *   overloaded); retriable.
 * - `ERR_OZONE_KMS_FAILED`: any other KMS answer (the key version is gone, a server error, a
 *   refused log-in); `cause` holds the KMS client's error.
 * - `ERR_OZONE_KMS_NOT_CONFIGURED`: the key is encrypted and there is no key provider
 *   (`hadoop.security.key.provider.path`) to ask.
 *
 * Nothing of the key's data was read or written. Messages name the key and its key version,
 * never key material.
 */
export class OzoneKmsError extends OzoneError {
  /** The bucket key (the KMS key name), when known. */
  readonly keyName: string | undefined;
  /** The KMS client's code (`ERR_KMS_…`), when the KMS client failed. */
  readonly kmsCode: string | undefined;
  constructor(
    code:
      | 'ERR_OZONE_KMS_ACCESS_DENIED'
      | 'ERR_OZONE_KMS_UNREACHABLE'
      | 'ERR_OZONE_KMS_FAILED'
      | 'ERR_OZONE_KMS_NOT_CONFIGURED',
    message: string,
    details: { keyName?: string; kmsCode?: string; cause?: unknown } = {},
  ) {
    super(code, message, {
      retriable: code === 'ERR_OZONE_KMS_UNREACHABLE',
      ...(details.cause !== undefined ? { cause: details.cause } : {}),
    });
    this.keyName = details.keyName;
    this.kmsCode = details.kmsCode;
  }
}

/**
 * A key's FileEncryptionInfo names what this client cannot decrypt: a cipher suite other than
 * AES/CTR/NoPadding, a crypto protocol version other than ENCRYPTION_ZONES, an IV that is not 16
 * bytes, a data key that is not 128 or 256 bits. Code `ERR_OZONE_UNSUPPORTED_ENCRYPTION`; nothing
 * was read or written.
 */
export class OzoneUnsupportedEncryptionError extends OzoneError {
  constructor(message: string) {
    super('ERR_OZONE_UNSUPPORTED_ENCRYPTION', message);
  }
}
