// The CommitKey request of a key output stream, shared by close() and hsync(): Java's
// OzoneManagerProtocolClientSideTranslatorPB#commitKey/#hsyncKey put the same KeyArgs on the wire,
// and hsync adds `hsync = true`.
import type { BlockRef } from './block-requests.js';
import { int64, uint64, type hadoop } from './proto/wire.js';
import { replicationKeyArgs, type KeyReplication } from './replication.js';

/** The open key a CommitKey names. */
export interface CommitTarget {
  volume: string;
  bucket: string;
  key: string;
  /** The open-key ID (CreateKeyResponse.ID). */
  clientId: bigint;
  /** The key's replication as CreateKey answered it: RATIS with its factor, or EC with its config. */
  replication: KeyReplication;
}

/**
 * A block as CommitKey lists it: its latest BCSID and how many of its bytes the key holds (for an
 * EC block group, its data bytes: parity is not counted).
 */
export interface CommitBlock {
  ref: BlockRef;
  lengthBytes: number;
}

export function commitKeyRequest(
  target: CommitTarget,
  blocks: readonly CommitBlock[],
  dataSizeBytes: number,
  options: { hsync?: boolean } = {},
): hadoop.ozone.ICommitKeyRequest {
  return {
    keyArgs: {
      volumeName: target.volume,
      bucketName: target.bucket,
      keyName: target.key,
      dataSize: uint64(dataSizeBytes),
      ...replicationKeyArgs(target.replication),
      keyLocations: blocks.map((b) => ({
        blockID: {
          containerBlockID: { containerID: int64(b.ref.containerId), localID: int64(b.ref.localId) },
          blockCommitSequenceId: uint64(b.ref.blockCommitSequenceId),
        },
        // The offset within the block, 0 as Ozone's Java writer sends it.
        offset: uint64(0),
        length: uint64(b.lengthBytes),
      })),
    },
    clientID: uint64(target.clientId),
    // Java's translator sends hsync=false (and recovery=false) on close; the OM reads an absent
    // field the same way, so a close keeps the bytes it always sent.
    ...(options.hsync ? { hsync: true } : {}),
  };
}
