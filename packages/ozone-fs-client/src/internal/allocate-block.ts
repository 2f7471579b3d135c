// AllocateBlock, as a key output stream asks for its next block (or EC block group) once the ones
// CreateKey pre-allocated are used up or dropped after a failure.
import { OzoneProtocolError } from '../ozone-errors.js';
import type { ExcludeList } from './exclude-list.js';
import type { OmClient } from './om/om-client.js';
import { uint64, type hadoop } from './proto/wire.js';
import { replicationKeyArgs, type KeyReplication } from './replication.js';

/** The open key a block is allocated to. */
export interface AllocationTarget {
  volume: string;
  bucket: string;
  key: string;
  /** The open-key ID (CreateKeyResponse.ID). */
  clientId: bigint;
  replication: KeyReplication;
}

/** Asks the OM for one more block of the open key, keeping away from what `exclude` lists. */
export async function allocateBlock(
  om: OmClient,
  target: AllocationTarget,
  dataSizeBytes: number,
  exclude: ExcludeList,
): Promise<hadoop.ozone.IKeyLocation> {
  const r = await om.submit('AllocateBlock', {
    allocateBlockRequest: {
      keyArgs: {
        volumeName: target.volume,
        bucketName: target.bucket,
        keyName: target.key,
        dataSize: uint64(dataSizeBytes),
        ...replicationKeyArgs(target.replication),
      },
      clientID: uint64(target.clientId),
      ...exclude.toRequestField(),
    },
  });
  const location = r.allocateBlockResponse?.keyLocation ?? undefined;
  if (!location) throw new OzoneProtocolError(om.address, 'AllocateBlock answered without a key location');
  return location;
}
