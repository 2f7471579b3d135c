import { createServer } from 'node:net';
import { KmsListenError } from '../../kms-errors.js';

/** What to change for each reason a listen fails. */
const ADVICE: Readonly<Record<string, string>> = {
  EADDRINUSE:
    'the port is already in use: stop the process using it, or choose another port with --port (hadoop.kms.http.port)',
  EACCES:
    'permission denied: ports below 1024 need privileges; choose another port with --port (hadoop.kms.http.port)',
  EADDRNOTAVAIL: 'the address is not one of this machine: choose another with --host (hadoop.kms.http.host)',
};

/** The {@link KmsListenError} for a failed `listen`, or `error` itself when it is not a listen failure. */
export function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const advice = typeof code === 'string' ? ADVICE[code] : undefined;
  if (advice === undefined) return error;
  return new KmsListenError(host, port, `cannot listen on ${host}:${port}: ${advice} (${String(code)})`, {
    cause: error,
  });
}

/**
 * Fails with a {@link KmsListenError} when `host:port` cannot be bound now, so a start that could
 * never serve stops before it creates a keystore, a password file or an audit log. Port 0 always
 * binds. The port is released again at once: the real listen may still lose a race, which
 * `listen()` reports the same way.
 */
export async function assertCanListen(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host, port, exclusive: true }, resolve);
    });
  } catch (error) {
    throw listenError(error, host, port);
  } finally {
    await new Promise((resolve) => probe.close(resolve));
  }
}
