// What an erasure-coded key must look like on the embedded cluster, read from its replicas
// directly (not through the client's reader): the layout Ozone's Java EC writer (ECKeyOutputStream)
// leaves, checked for keys laid by the test striper and by the client's writer alike.
import { expect } from '@jest/globals';
import type { MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { getBlockRequest, readChunkRequest } from '../../src/internal/block-requests.js';
import { checksumTypeName, computeChecksums } from '../../src/internal/checksum.js';
import {
  internalBlockLength,
  locateInGroup,
  type EcReplicationConfig,
} from '../../src/internal/ec/ec-stripe-layout.js';
import { createRawErasureDecoder } from '../../src/internal/ec/raw-erasure-coder.js';
import { dn, hdds, toBigInt, toNumber, type hadoop } from '../../src/internal/proto/wire.js';

/** One replica as its datanode holds it: its BlockData (from GetBlock) and its bytes, chunk after chunk. */
export async function readReplica(
  cluster: MiniOzoneCluster,
  datanode: string,
  containerId: bigint,
  localId: bigint,
  replicaIndex: number,
): Promise<{ blockData: hadoop.hdds.datanode.IBlockData; bytes: Buffer }> {
  const block = { containerId, localId, blockCommitSequenceId: 0n, replicaIndex };
  const got = await cluster.datanode(datanode).applyCommitted(getBlockRequest(block, datanode));
  expect(got.result).toBe(dn.Result.SUCCESS);
  const blockData = got.getBlock!.blockData;
  const parts: Uint8Array[] = [];
  for (const chunk of blockData.chunks ?? []) {
    const r = await cluster
      .datanode(datanode)
      .applyCommitted(readChunkRequest(block, chunk, toNumber(chunk.offset), toNumber(chunk.len), datanode));
    expect(r.result).toBe(dn.Result.SUCCESS);
    parts.push(Buffer.concat(r.readChunk!.dataBuffers!.buffers!));
  }
  return { blockData, bytes: Buffer.concat(parts) };
}

/** What else to hold the replicas to. */
export interface EcLayoutExpectations {
  /**
   * Each chunk of replica 1 and of every parity replica carries its stripe's checksum (the
   * checksums of the stripe's chunks, replica 1 to d + p, joined) and the other data replicas'
   * chunks none, as Java's writer leaves them. Default: not checked (the test striper sets none).
   */
  stripeChecksums?: boolean;
}

/**
 * Checks a committed EC key against its bytes: the OM's view (EC type and config, `dataSize`, d + p
 * members with indexes 1..d+p on distinct datanodes per group); per replica its length, its
 * BlockData (`size`, `TYPE`=`KEY` then `blockGroupLen` = the group's length, chunks named
 * `<localID>_chunk_<n>` at n − 1 cells, each with the checksums of its bytes); the key's bytes
 * reassembled from the data replicas through the stripe layout; and each stripe's parity, by
 * rebuilding a data cell from the others. Returns the groups' lengths, in key order.
 */
export async function expectEcLayout(
  cluster: MiniOzoneCluster,
  info: hadoop.ozone.IKeyInfo,
  data: Uint8Array,
  config: EcReplicationConfig,
  expectations: EcLayoutExpectations = {},
): Promise<number[]> {
  expect(info.type).toBe(hdds.ReplicationType.EC);
  expect(toNumber(info.dataSize)).toBe(data.length);
  expect(info.ecReplicationConfig).toMatchObject({
    data: config.data,
    parity: config.parity,
    codec: config.codec,
    ecChunkSize: config.ecChunkSize,
  });
  const width = config.data + config.parity;
  const c = config.ecChunkSize;
  const locations = info.keyLocationList![0]!.keyLocations ?? [];
  const lengths: number[] = [];
  let start = 0;
  for (const loc of locations) {
    const L = toNumber(loc.length);
    lengths.push(L);
    const p = loc.pipeline!;
    expect(p.type).toBe(hdds.ReplicationType.EC);
    expect(p.leaderID).toBe('');
    expect(p.memberReplicaIndexes).toEqual(Array.from({ length: width }, (_, i) => i + 1));
    expect(p.ecReplicationConfig?.data).toBe(config.data);
    const uuids = p.members!.map((m) => m.uuid!);
    expect(new Set(uuids).size).toBe(width);
    const containerId = toBigInt(loc.blockID.containerBlockID.containerID);
    const localId = toBigInt(loc.blockID.containerBlockID.localID);
    const replicas: Buffer[] = [];
    const chunkLists: hadoop.hdds.datanode.IChunkInfo[][] = [];
    for (let index = 1; index <= width; index++) {
      const r = await readReplica(cluster, uuids[index - 1]!, containerId, localId, index);
      expect(r.bytes.length).toBe(internalBlockLength(config, L, index));
      expect(toNumber(r.blockData.size)).toBe(r.bytes.length);
      expect(r.blockData.metadata).toEqual([
        expect.objectContaining({ key: 'TYPE', value: 'KEY' }),
        expect.objectContaining({ key: 'blockGroupLen', value: String(L) }),
      ]);
      const chunks = r.blockData.chunks ?? [];
      chunks.forEach((chunk, k) => {
        expect(chunk.chunkName).toBe(`${localId}_chunk_${k + 1}`);
        expect(toNumber(chunk.offset)).toBe(k * c);
        const bytes = r.bytes.subarray(k * c, k * c + toNumber(chunk.len));
        const type = checksumTypeName(chunk.checksumData.type)!;
        expect((chunk.checksumData.checksums ?? []).map((x) => Buffer.from(x).toString('hex'))).toEqual(
          computeChecksums(type, chunk.checksumData.bytesPerChecksum, bytes).map((x) => x.toString('hex')),
        );
      });
      replicas.push(r.bytes);
      chunkLists.push(chunks);
    }
    if (expectations.stripeChecksums) expectStripeChecksums(config, chunkLists);
    // The key's bytes, cell by cell, from the data replicas.
    const group = Buffer.alloc(L);
    for (let o = 0; o < L;) {
      const at = locateInGroup(config, L, o);
      const replica = replicas[at.replicaIndex - 1]!;
      group.set(replica.subarray(at.offsetInReplica, at.offsetInReplica + at.bytesToCellEnd), o);
      o += at.bytesToCellEnd;
    }
    expect(group.equals(Buffer.from(data.subarray(start, start + L)))).toBe(true);
    // Parity is right: a data cell of each stripe is rebuilt from the others and the parity.
    const decoder = createRawErasureDecoder(config);
    for (let s = 0; s * c < replicas[0]!.length; s++) {
      const cellLength = Math.min(c, replicas[0]!.length - s * c);
      const units = replicas.map((r) => {
        const u = new Uint8Array(cellLength);
        u.set(r.subarray(s * c, Math.min(s * c + cellLength, r.length)));
        return u;
      });
      const lost = s % config.data;
      const inputs: Array<Uint8Array | null> = [...units];
      inputs[lost] = null;
      const out = new Uint8Array(cellLength);
      decoder.decode(inputs, [lost], [out]);
      expect(Buffer.from(out).equals(Buffer.from(units[lost]!))).toBe(true);
    }
    start += L;
  }
  expect(start).toBe(data.length);
  return lengths;
}

function expectStripeChecksums(
  config: EcReplicationConfig,
  chunkLists: hadoop.hdds.datanode.IChunkInfo[][],
): void {
  const stripes = chunkLists[0]!.length;
  for (let s = 0; s < stripes; s++) {
    const joined = Buffer.concat(
      chunkLists.flatMap((chunks) => (chunks[s] ? (chunks[s]!.checksumData.checksums ?? []) : [])),
    ).toString('hex');
    chunkLists.forEach((chunks, i) => {
      const index = i + 1;
      const chunk = chunks[s];
      if (!chunk) return;
      const stored = Buffer.from(chunk.stripeChecksum ?? []).toString('hex');
      expect({ index, stripe: s, stored }).toEqual({
        index,
        stripe: s,
        stored: index === 1 || index > config.data ? joined : '',
      });
    });
  }
}
