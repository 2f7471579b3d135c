import { readFileSync } from 'node:fs';
import { credentials, type ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';
import { OzoneTlsConfigError } from '../../ozone-errors.js';

/** TLS settings of the client's channels. */
export interface ClientTlsOptions {
  /** PEM file of the CA that signed the servers' certificates. */
  caFile: string;
  /** Host name the server certificates are checked against, when it differs from the address (default: the address's host). */
  serverNameOverride?: string;
}

export function channelCredentials(tls: ClientTlsOptions | undefined): ChannelCredentials {
  if (!tls) return credentials.createInsecure();
  let ca: Buffer;
  try {
    ca = readFileSync(tls.caFile);
  } catch (cause) {
    throw new OzoneTlsConfigError(
      `cannot read the CA file ${tls.caFile}: ${(cause as Error).message}`,
      cause,
    );
  }
  return credentials.createSsl(ca);
}

export function channelOptions(maxReceiveBytes: number, tls: ClientTlsOptions | undefined): ChannelOptions {
  const options: ChannelOptions = {
    'grpc.max_receive_message_length': maxReceiveBytes,
    'grpc.max_send_message_length': maxReceiveBytes,
    // A 4 MiB chunk through HTTP/2's default 64 KiB window takes 64 window updates; open it wide.
    'grpc-node.flow_control_window': 16 * 1024 * 1024,
  };
  if (tls?.serverNameOverride) options['grpc.ssl_target_name_override'] = tls.serverNameOverride;
  return options;
}
