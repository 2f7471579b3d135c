// Writes an erasure-coded key onto the mini cluster the way Ozone's EC writer lays it out
// (ECKeyOutputStream, ECBlockOutputStream): CreateKey with the EC config, the key cut into block
// groups and stripes, parity computed per stripe by the raw encoder, each cell one chunk on the
// replica of its index with its own checksums, every replica's PutBlock carrying the group
// length (`blockGroupLen`), then CommitKey with the groups' data lengths. It lets the read path be
// tested before the client writes EC keys itself; it stores replicas through the datanodes'
// container-command handler, not over the network.
import { randomBytes } from 'node:crypto';
import { MiniClusterError, OmStatusError } from '../ozone-errors.js';
import { computeChecksums, CHECKSUM_TYPE_VALUES, type ChecksumTypeName } from '../internal/checksum.js';
import { type EcReplicationConfig } from '../internal/ec/ec-stripe-layout.js';
import { createRawErasureEncoder } from '../internal/ec/raw-erasure-coder.js';
import { CLIENT_VERSION, GrpcOmTransport } from '../internal/grpc/om-transport.js';
import {
  dn,
  hdds,
  int64,
  om as omProto,
  toBigInt,
  toNumber,
  uint64,
  type hadoop,
} from '../internal/proto/wire.js';
import type { MiniOzoneCluster } from './mini-ozone-cluster.js';
import { ecConfigProto } from './mini-om-ec.js';

/** What {@link writeEcKey} writes. */
export interface EcKeyToWrite {
  /** The volume, which must exist. */
  volume: string;
  /** The bucket, which must exist. */
  bucket: string;
  /** The key's name. */
  key: string;
  /** The key's bytes. */
  data: Uint8Array;
  /** The key's EC replication config; the mini OM refuses one outside `ozone.replication.allowed-configs`. */
  config: EcReplicationConfig;
  /** Key bytes per block group; a multiple of the stripe's data size. Default: the whole key in one group. */
  blockGroupBytes?: number;
  /** Default CRC32C. */
  checksumType?: ChecksumTypeName;
  /** Default 16 KiB. */
  bytesPerChecksum?: number;
}

/** One block group as written: its BlockID and the datanode of each replica index (position i = index i + 1). */
export interface WrittenBlockGroup {
  /** The group's container. */
  containerId: bigint;
  /** The group's block id in its container. */
  localId: bigint;
  /** Where the group's data starts in the key. */
  offsetInKey: number;
  /** The group's data bytes (parity not counted). */
  length: number;
  /** The datanode UUIDs of replica indexes 1..d+p, in index order. */
  datanodes: readonly string[];
}

/** Writes an EC key (plaintext clusters) and commits it; returns its block groups in key order. */
export async function writeEcKey(cluster: MiniOzoneCluster, k: EcKeyToWrite): Promise<WrittenBlockGroup[]> {
  const { config, data } = k;
  const stripeBytes = config.ecChunkSize * config.data;
  const groupBytes =
    k.blockGroupBytes ?? Math.max(stripeBytes, Math.ceil(data.length / stripeBytes) * stripeBytes);
  if (!Number.isSafeInteger(groupBytes) || groupBytes < stripeBytes || groupBytes % stripeBytes !== 0)
    throw new MiniClusterError(
      `blockGroupBytes must be a positive multiple of ${stripeBytes}, got ${groupBytes}`,
    );
  const om = directOmCalls(cluster.omAddress);
  try {
    const keyArgs: hadoop.ozone.IKeyArgs = {
      volumeName: k.volume,
      bucketName: k.bucket,
      keyName: k.key,
      dataSize: uint64(data.length),
      type: hdds.ReplicationType.EC,
      ecReplicationConfig: ecConfigProto(config),
    };
    const created = await om.submit('CreateKey', { createKeyRequest: { keyArgs } });
    const opened = created.createKeyResponse!;
    const clientID = uint64(toBigInt(opened.ID));
    const groups: WrittenBlockGroup[] = [];
    let location = opened.keyInfo!.keyLocationList![0]!.keyLocations![0]!;
    for (let start = 0; start === 0 || start < data.length; start += groupBytes) {
      if (start > 0) {
        const allocated = await om.submit('AllocateBlock', { allocateBlockRequest: { clientID, keyArgs } });
        location = allocated.allocateBlockResponse!.keyLocation!;
      }
      const group = data.subarray(start, Math.min(start + groupBytes, data.length));
      groups.push(await writeGroup(cluster, k, location, start, group));
    }
    await om.submit('CommitKey', {
      commitKeyRequest: {
        clientID,
        keyArgs: {
          ...keyArgs,
          keyLocations: groups.map((g) => ({
            blockID: {
              containerBlockID: { containerID: int64(g.containerId), localID: int64(g.localId) },
              blockCommitSequenceId: uint64(0),
            },
            offset: uint64(0),
            length: uint64(g.length),
          })),
        },
      },
    });
    return groups;
  } finally {
    om.close();
  }
}

/**
 * OM calls straight to one mini OM over gRPC, one attempt each: the striper needs no failover, and
 * it runs beside the client it prepares keys for rather than through it. Tests use it to look at
 * what the OM recorded.
 */
export function directOmCalls(address: string): {
  submit(
    cmdType: keyof typeof omProto.Type,
    body: Omit<hadoop.ozone.IOMRequest, 'cmdType' | 'clientId' | 'userInfo' | 'version'>,
  ): Promise<hadoop.ozone.OMResponse>;
  close(): void;
} {
  const transport = new GrpcOmTransport({
    address,
    timeoutMs: 30_000,
    reconnectBackoffMs: 1000,
    maxMessageBytes: 64 * 1024 * 1024,
    tls: undefined,
  });
  const clientId = randomBytes(16);
  let callId = 0;
  return {
    async submit(cmdType, body) {
      const request = omProto.OMRequest.encode({
        cmdType: omProto.Type[cmdType],
        clientId: clientId.toString('hex'),
        userInfo: { userName: 'ec-striper' },
        version: CLIENT_VERSION,
        ...body,
      }).finish();
      const response = omProto.OMResponse.decode(
        await transport.send(request, { clientId, callId: callId++, retryCount: 0 }),
      );
      if (response.status !== omProto.Status.OK)
        throw new OmStatusError(
          cmdType,
          omProto.Status[response.status] ?? `status ${response.status}`,
          response.message,
        );
      return response;
    },
    close: () => transport.close(),
  };
}

async function writeGroup(
  cluster: MiniOzoneCluster,
  k: EcKeyToWrite,
  location: hadoop.ozone.IKeyLocation,
  offsetInKey: number,
  group: Uint8Array,
): Promise<WrittenBlockGroup> {
  const { config } = k;
  const c = config.ecChunkSize;
  const width = config.data + config.parity;
  const pipeline = location.pipeline!;
  const datanodes = (pipeline.members ?? []).map((m) => m.uuid ?? '');
  const indexes = pipeline.memberReplicaIndexes ?? [];
  if (datanodes.length !== width || indexes.some((index, i) => index !== i + 1))
    throw new MiniClusterError(`an EC block group needs members with replica indexes 1..${width}`);
  const containerId = toBigInt(location.blockID.containerBlockID.containerID);
  const localId = toBigInt(location.blockID.containerBlockID.localID);
  const type = k.checksumType ?? 'CRC32C';
  const bytesPerChecksum = k.bytesPerChecksum ?? 16 * 1024;
  const encoder = createRawErasureEncoder(config);
  const chunks: hadoop.hdds.datanode.IChunkInfo[][] = Array.from({ length: width }, () => []);
  const stripeBytes = c * config.data;
  for (let s = 0; s * stripeBytes < group.length; s++) {
    const stripe = group.subarray(s * stripeBytes, Math.min((s + 1) * stripeBytes, group.length));
    // A partial stripe's parity cells are as long as its first data cell; shorter cells are
    // zero-padded for the encoder but stored at their own length.
    const cellLength = Math.min(c, stripe.length);
    const cells = Array.from({ length: config.data }, (_, i) => {
      const padded = new Uint8Array(cellLength);
      padded.set(stripe.subarray(i * c, Math.min((i + 1) * c, stripe.length)));
      return { padded, length: Math.max(0, Math.min(c, stripe.length - i * c)) };
    });
    const parity = Array.from({ length: config.parity }, () => new Uint8Array(cellLength));
    encoder.encode(
      cells.map((x) => x.padded),
      parity,
    );
    const units = [...cells.map((x) => x.padded.subarray(0, x.length)), ...parity];
    for (let i = 0; i < width; i++) {
      const unit = units[i]!;
      if (unit.length === 0) continue;
      const chunk: hadoop.hdds.datanode.IChunkInfo = {
        chunkName: `${localId}_chunk_${s + 1}`,
        offset: uint64(s * c),
        len: uint64(unit.length),
        checksumData: {
          type: CHECKSUM_TYPE_VALUES[type],
          bytesPerChecksum,
          checksums: computeChecksums(type, bytesPerChecksum, unit),
        },
      };
      await command(cluster, datanodes[i]!, {
        cmdType: dn.Type.WriteChunk,
        containerID: int64(containerId),
        datanodeUuid: datanodes[i]!,
        writeChunk: { blockID: blockId(containerId, localId, i + 1), chunkData: chunk, data: unit },
      });
      chunks[i]!.push(chunk);
    }
  }
  for (let i = 0; i < width; i++) {
    const size = chunks[i]!.reduce((n, ch) => n + toNumber(ch.len), 0);
    await command(cluster, datanodes[i]!, {
      cmdType: dn.Type.PutBlock,
      containerID: int64(containerId),
      datanodeUuid: datanodes[i]!,
      putBlock: {
        blockData: {
          blockID: blockId(containerId, localId, i + 1),
          // OzoneConsts.BLOCK_GROUP_LEN_KEY_IN_PUT_BLOCK: every EC PutBlock names the group's length.
          metadata: [
            { key: 'TYPE', value: 'KEY' },
            { key: 'blockGroupLen', value: String(group.length) },
          ],
          chunks: chunks[i]!,
          size: int64(BigInt(size)),
        },
        eof: true,
      },
    });
  }
  return { containerId, localId, offsetInKey, length: group.length, datanodes };
}

function blockId(
  containerId: bigint,
  localId: bigint,
  replicaIndex: number,
): hadoop.hdds.datanode.IDatanodeBlockID {
  // EC blocks have BCSID 0: their PutBlock does not go through Ratis.
  return {
    containerID: int64(containerId),
    localID: int64(localId),
    blockCommitSequenceId: uint64(0),
    replicaIndex,
  };
}

async function command(
  cluster: MiniOzoneCluster,
  uuid: string,
  request: hadoop.hdds.datanode.IContainerCommandRequestProto,
): Promise<void> {
  const answer = await cluster.datanode(uuid).applyCommitted(request);
  if (answer.result !== dn.Result.SUCCESS)
    throw new MiniClusterError(
      `${dn.Type[request.cmdType]} on datanode ${uuid}: ${dn.Result[answer.result] ?? answer.result} ${answer.message ?? ''}`,
    );
}
