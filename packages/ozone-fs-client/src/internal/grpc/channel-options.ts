import { readFileSync } from 'node:fs';
import { credentials, type ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';
import { OzoneTlsConfigError } from '../../ozone-errors.js';

/**
 * TLS settings of the client's channels. The CA comes from `caFile`, else `ca`; with neither, the
 * datanode channels trust the CA certificates the OM hands out in its service list (as Ozone's
 * client does), and the OM's own gRPC port cannot be used.
 */
export interface ClientTlsOptions {
  /** PEM file of the CA that signed the servers' certificates. */
  caFile?: string;
  /** The CA's PEM certificates as text (one or more). */
  ca?: string;
  /** Host name the server certificates are checked against, when it differs from the address (default: the address's host). */
  serverNameOverride?: string;
}

/** The PEM bytes of the CA that `tls` trusts. */
export function tlsCa(tls: ClientTlsOptions): Buffer {
  if (tls.caFile !== undefined) {
    try {
      return readFileSync(tls.caFile);
    } catch (cause) {
      throw new OzoneTlsConfigError(
        `cannot read the CA file ${tls.caFile}: ${(cause as Error).message}`,
        cause,
      );
    }
  }
  if (tls.ca !== undefined && tls.ca.trim() !== '') return Buffer.from(tls.ca);
  throw new OzoneTlsConfigError('TLS without a CA: give tls.caFile (or tls.ca)');
}

export function channelCredentials(tls: ClientTlsOptions | undefined): ChannelCredentials {
  if (!tls) return credentials.createInsecure();
  return credentials.createSsl(tlsCa(tls));
}

/**
 * `reconnectBackoffMs`: the longest wait between connection attempts (gRPC's default: 120 s, see
 * {@link datanodeReconnectBackoffMs}).
 */
export function channelOptions(
  maxReceiveBytes: number,
  tls: ClientTlsOptions | undefined,
  reconnectBackoffMs?: number,
): ChannelOptions {
  const options: ChannelOptions = {
    'grpc.max_receive_message_length': maxReceiveBytes,
    'grpc.max_send_message_length': maxReceiveBytes,
    // A 4 MiB chunk through HTTP/2's default 64 KiB window takes 64 window updates; open it wide.
    'grpc-node.flow_control_window': 16 * 1024 * 1024,
  };
  if (tls?.serverNameOverride) options['grpc.ssl_target_name_override'] = tls.serverNameOverride;
  if (reconnectBackoffMs !== undefined) {
    options['grpc.initial_reconnect_backoff_ms'] = Math.min(1000, reconnectBackoffMs);
    options['grpc.max_reconnect_backoff_ms'] = reconnectBackoffMs;
  }
  return options;
}

/**
 * The reconnect backoff of datanode channels, from `ozone.client.read.retry.interval`. gRPC waits
 * 1 s after a failed connection attempt, 1.6 times longer after each further one (up to 120 s),
 * keeps attempting while the channel is in use, and fails a call made during the wait at once,
 * without trying; every channel to one address in the process shares that state. So after a
 * datanode was down for some seconds, reads failed for seconds more although it was back: read
 * retries 1 s apart never reached it. Bounded by the retry interval, the next retry does; never
 * below 100 ms, so that a datanode that stays down costs at most ten refused connections a second.
 */
export function datanodeReconnectBackoffMs(readRetryIntervalMs: number): number {
  return Math.max(100, readRetryIntervalMs);
}
