import { HadoopConfigurationError } from '@fastpath/hadoop-common';
import { KmsConfigError } from '../../kms-errors.js';

// The configuration reader lives in @fastpath/hadoop-common and throws its own error. The server
// reports every configuration problem as ERR_KMS_CONFIG (the CLI exits 2 on invalid content, 1 on a file it cannot read; callers branch on
// it), so a refusal of the reader is translated here, keeping its property and message.

/** A {@link HadoopConfigurationError} as the server's {@link KmsConfigError}; anything else as it is. */
export function toKmsConfigError(error: unknown): unknown {
  return error instanceof HadoopConfigurationError
    ? new KmsConfigError(error.property, error.message, { cause: error })
    : error;
}

/**
 * Runs `read` (something that reads a Hadoop configuration) and rethrows a refused configuration
 * as {@link KmsConfigError}.
 *
 * @example
 * ```ts
 * const site = withKmsConfigErrors(() => HadoopConfiguration.fromXmlFile(path, { optional: true }));
 * ```
 */
export function withKmsConfigErrors<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw toKmsConfigError(error);
  }
}
