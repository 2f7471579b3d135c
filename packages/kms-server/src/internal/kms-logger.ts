import { inspect } from 'node:util';
/** Where the server writes its own messages (start, warnings, reloads). Never given secrets. */
export interface KmsLogger {
  /** Normal events: start, keystore opened, ACLs loaded, listening, stopped. */
  info(message: string): void;
  /** Something the operator should fix but the server runs on: ignored settings, ACL warnings. */
  warn(message: string): void;
  /**
   * A failure the server survived (an ACL file that no longer loads, a failed background task, an
   * error while stopping); `error` is what was caught, when there is one.
   */
  error(message: string, error?: unknown): void;
}

/** A logger that drops everything: the default of the programmatic API. */
export const SILENT_LOGGER: KmsLogger = Object.freeze({
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
});

/**
 * A logger writing one line per message to a stream (the command line uses stderr):
 * `2024-05-01T12:00:00.000Z INFO message`.
 */
export function streamLogger(write: (line: string) => void): KmsLogger {
  const line = (level: string, message: string): void =>
    write(`${new Date().toISOString()} ${level} ${message}\n`);
  return {
    info: (message) => line('INFO', message),
    warn: (message) => line('WARN', message),
    error: (message, error) =>
      line(
        'ERROR',
        error === undefined
          ? message
          : `${message}: ${error instanceof Error ? error.message : typeof error === 'string' ? error : inspect(error)}`,
      ),
  };
}

/** A logger that puts `[prefix] ` before every message (cluster workers). */
export function prefixLogger(logger: KmsLogger, prefix: string): KmsLogger {
  return {
    info: (message) => logger.info(`[${prefix}] ${message}`),
    warn: (message) => logger.warn(`[${prefix}] ${message}`),
    error: (message, error) => logger.error(`[${prefix}] ${message}`, error),
  };
}
