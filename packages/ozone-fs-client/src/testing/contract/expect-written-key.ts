// Every check of one key fastpath wrote, on any cluster: the bytes read back by fastpath with
// verification on and, where the cluster has it, by Ozone's own Java client with verification on;
// the OM's record (read by the cluster's own side too, where it can) with a BCSID other than 0 per
// block; and each replica holding the block with that BCSID, as GetBlock on the member's
// standalone port answers (decoded by field number, not by fastpath's codecs).
import { createHash } from 'node:crypto';
import { expect } from '@jest/globals';
import type { KeyBlockLocation, OzoneClient } from '../../index.js';
import { contractKeyBytes } from './contract-key-bytes.js';
import type { OzoneClusterAdapter } from './ozone-cluster-adapter.js';
import { tlsCa } from '../../internal/grpc/channel-options.js';
import {
  standaloneGetBlock,
  type ReplicaBlock,
  type StandaloneGetBlockOptions,
} from './standalone-get-block.js';
import { until } from './until.js';

const MiB = 1024 * 1024;
/** Reads and hashes go in pieces of this size, so a 256 MiB key never sits in memory whole. */
const PIECE_BYTES = 16 * MiB;

/** A key written with the bytes of `contractKeyBytes(sizeBytes, seed)`. */
export interface WrittenKey {
  /** Volume of the key. */
  volume: string;
  /** Bucket of the key. */
  bucket: string;
  /** Key name within the bucket. */
  key: string;
  /** Length of the key in bytes, as written. */
  sizeBytes: number;
  /** Seed of `contractKeyBytes` the key was written with. */
  seed: number;
  /** Members each block's pipeline has: 3 (RATIS/THREE) or 1 (RATIS/ONE). */
  replicas: 1 | 3;
  /** Whether the key carries checksums (a key of type NONE has none to verify). Default: true. */
  checksummed?: boolean;
}

/** How far the replicas are checked. */
export interface WrittenKeyChecks {
  /** Datanodes down now: their replicas are not asked. */
  down?: readonly string[];
  /**
   * A block a failover cut short is committed with the BCSID of its last watched PutBlock, while
   * its replicas may have applied later PutBlocks: they must then hold at least the committed
   * BCSID and length. Default: false (exactly).
   */
  replicasAtLeast?: boolean;
}

/** Waits this long for a follower to apply the block's last PutBlock (an ALL_COMMITTED watch means committed, not applied). */
const REPLICA_WAIT_MS = 30_000;

/** The SHA-256 of a contract key's bytes, hashed a piece at a time. */
export function contractKeySha256(sizeBytes: number, seed: number): string {
  const hash = createHash('sha256');
  for (let at = 0; at < sizeBytes; at += PIECE_BYTES)
    hash.update(contractKeyBytes(Math.min(PIECE_BYTES, sizeBytes - at), seed, at));
  return hash.digest('hex');
}

/** Runs every check of a key fastpath wrote; fails the test on the first that does not hold. */
export async function expectWrittenKey(
  adapter: OzoneClusterAdapter,
  client: OzoneClient,
  key: WrittenKey,
  checks: WrittenKeyChecks = {},
): Promise<void> {
  const { volume, bucket, sizeBytes, seed } = key;

  // fastpath reads it back, every checksum window verified.
  const stream = await client.openKey(volume, bucket, key.key, { verifyChecksum: true });
  for (let at = 0; at < sizeBytes; at += PIECE_BYTES) {
    const length = Math.min(PIECE_BYTES, sizeBytes - at);
    const same = (await stream.readFully(at, length)).equals(contractKeyBytes(length, seed, at));
    expect({ key: key.key, bytesFrom: at, same }).toEqual({ key: key.key, bytesFrom: at, same: true });
  }
  expect(stream.stats.bytesVerified).toBe(key.checksummed === false ? 0 : sizeBytes);

  // Ozone's Java client reads it back, verification on.
  if (adapter.readKeyWithJava) {
    expect(await adapter.readKeyWithJava(volume, bucket, key.key)).toEqual({
      bytesRead: sizeBytes,
      sha256: contractKeySha256(sizeBytes, seed),
    });
  }

  // The OM's record: the key's length, one block per non-empty block, each with a BCSID.
  const details = await client.getKeyInfo(volume, bucket, key.key);
  expect(details.sizeBytes).toBe(sizeBytes);
  expect(details.blocks.reduce((n, b) => n + b.lengthBytes, 0)).toBe(sizeBytes);
  if (sizeBytes === 0) expect(details.blocks).toEqual([]);
  if (adapter.lookupKey) {
    expect(await adapter.lookupKey(volume, bucket, key.key)).toEqual({
      dataSize: sizeBytes,
      blocks: details.blocks.map((b) => ({
        containerId: b.containerId,
        localId: b.localId,
        blockCommitSequenceId: b.blockCommitSequenceId,
        lengthBytes: b.lengthBytes,
      })),
    });
  }
  for (const block of details.blocks) {
    expect(block.blockCommitSequenceId).toBeGreaterThan(0n);
    expect(block.datanodes).toHaveLength(key.replicas);
    for (const member of block.datanodes) {
      if (checks.down?.includes(member.uuid)) continue;
      await expectReplica(block, member, checks.replicasAtLeast ?? false, replicaAccess(adapter));
    }
  }
}

/** How the replicas are reached: over TLS when the cluster's clients use it (its CA given). */
function replicaAccess(adapter: OzoneClusterAdapter): StandaloneGetBlockOptions {
  const tls = adapter.tls;
  if (tls === undefined) return {};
  return {
    tls: {
      ca: tlsCa(tls),
      ...(tls.serverNameOverride === undefined ? {} : { serverNameOverride: tls.serverNameOverride }),
    },
  };
}

/** GetBlock on the member until it holds the committed block (bounded), then the exact comparison. */
async function expectReplica(
  block: KeyBlockLocation,
  member: { uuid: string; address: string },
  atLeast: boolean,
  access: StandaloneGetBlockOptions,
): Promise<void> {
  const holds = (r: ReplicaBlock | undefined): boolean =>
    r?.result === 'SUCCESS' &&
    (atLeast
      ? r.blockCommitSequenceId >= block.blockCommitSequenceId && r.sizeBytes >= block.lengthBytes
      : r.blockCommitSequenceId === block.blockCommitSequenceId && r.sizeBytes === block.lengthBytes);
  let replica: ReplicaBlock | undefined;
  await until(
    `datanode ${member.uuid} to hold block ${block.localId} at BCSID ${block.blockCommitSequenceId}`,
    async () => holds((replica = await standaloneGetBlock(member.address, member.uuid, block, access))),
    REPLICA_WAIT_MS,
  ).catch(() => undefined); // the comparison below says what the replica holds instead
  const expected = atLeast
    ? { result: 'SUCCESS', blockCommitSequenceId: expect.anything(), sizeBytes: expect.anything() }
    : { result: 'SUCCESS', blockCommitSequenceId: block.blockCommitSequenceId, sizeBytes: block.lengthBytes };
  expect({ datanode: member.uuid, holds: holds(replica), ...replica }).toEqual({
    datanode: member.uuid,
    holds: true,
    ...expected,
  });
}
