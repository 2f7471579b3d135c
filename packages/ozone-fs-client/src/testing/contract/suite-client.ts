import { createOzoneClient, type OzoneClient, type OzoneClientConfig } from '../../index.js';
import type { OzoneClusterAdapter } from './ozone-cluster-adapter.js';

/** A client of the adapter's cluster as the suites make them: its TLS and client options, `config` on top. */
export function suiteClient(a: OzoneClusterAdapter, config?: Partial<OzoneClientConfig>): OzoneClient {
  return createOzoneClient({
    omAddress: a.omAddress,
    userName: 'reader',
    ...(a.tls ? { tls: a.tls } : {}),
    ...a.clientOptions,
    ...(config ? { config: { ...a.clientOptions?.config, ...config } } : {}),
  });
}

/** A fresh volume (named from `prefix`, the process and the time) with one bucket; returns its name. */
export async function freshVolume(client: OzoneClient, prefix: string, bucket: string): Promise<string> {
  const volume = `${prefix}${process.pid % 10000}x${Date.now() % 1_000_000}`;
  await client.createVolume(volume);
  await client.createBucket(volume, bucket);
  return volume;
}
