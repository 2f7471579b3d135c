import type { OzoneClient } from '../../index.js';
import { contractKeyBytes } from './contract-key-bytes.js';
import type { ContractKeySpec, OzoneClusterAdapter } from './ozone-cluster-adapter.js';

const MiB = 1024 * 1024;

/**
 * Writes a key of `contractKeyBytes(spec.sizeBytes, spec.seed)`: with the cluster's own writer
 * when the adapter has one (Ozone's Java client on a real cluster), else with fastpath's client.
 */
export async function writeContractKey(
  adapter: OzoneClusterAdapter,
  client: OzoneClient,
  spec: ContractKeySpec,
): Promise<void> {
  if (adapter.writeKey) {
    await adapter.writeKey(spec);
    return;
  }
  await writeKeyWithFastpath(client, spec);
}

/**
 * Writes a key of `contractKeyBytes(spec.sizeBytes, spec.seed)` with fastpath's client, in pieces
 * of `pieceBytes` that do not line up with chunks, as a streaming writer would; CreateKey names
 * the whole size, so the OM allocates its first block up front.
 */
export async function writeKeyWithFastpath(
  client: OzoneClient,
  spec: ContractKeySpec,
  pieceBytes = 3 * MiB + 7,
): Promise<void> {
  const out = await client.createKey(spec.volume, spec.bucket, spec.key, {
    sizeBytes: spec.sizeBytes,
    checksumType: spec.checksumType,
    bytesPerChecksum: spec.bytesPerChecksum,
    chunkSizeBytes: spec.chunkSizeBytes,
    blockSizeBytes: spec.blockSizeBytes,
    replication: spec.replication,
  });
  for (let at = 0; at < spec.sizeBytes; at += pieceBytes) {
    await out.write(contractKeyBytes(Math.min(pieceBytes, spec.sizeBytes - at), spec.seed, at));
  }
  await out.close();
}
