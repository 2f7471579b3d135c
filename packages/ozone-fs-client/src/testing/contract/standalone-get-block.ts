// GetBlock on one datanode's standalone gRPC port, encoded and decoded here by field number
// (DatanodeClientProtocol.proto) rather than with fastpath's codecs, so that what a replica holds
// is read independently of the client under test.
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs/minimal.js';

const SEND_PATH = '/hadoop.hdds.datanode.XceiverClientProtocolService/send';
const GET_BLOCK = 7;
const SUCCESS = 1;

/** What one replica holds of a block: its BCSID and size, or the datanode's non-SUCCESS result. */
export type ReplicaBlock =
  | {
      /** The datanode answered SUCCESS. */
      result: 'SUCCESS';
      /** The BCSID the replica holds the block at (`BlockData.blockID.blockCommitSequenceId`). */
      blockCommitSequenceId: bigint;
      /** The block's length in bytes on this replica (`BlockData.size`). */
      sizeBytes: number;
    }
  | {
      /** The datanode's `Result` number, e.g. 12 (NO_SUCH_BLOCK) or 9 (CONTAINER_NOT_FOUND). */
      result: number;
      /** The datanode's error message. */
      message: string;
    };

function encodeGetBlock(
  containerId: bigint,
  localId: bigint,
  datanodeUuid: string,
  encodedToken: string | undefined,
): Buffer {
  const w = protobuf.Writer.create();
  w.uint32((1 << 3) | 0).int32(GET_BLOCK);
  w.uint32((3 << 3) | 0).int64(containerId.toString());
  w.uint32((4 << 3) | 2).string(datanodeUuid);
  w.uint32((13 << 3) | 2).fork();
  w.uint32((1 << 3) | 2).fork();
  w.uint32((1 << 3) | 0).int64(containerId.toString());
  w.uint32((2 << 3) | 0).int64(localId.toString());
  w.ldelim();
  w.ldelim();
  // encodedToken (23): the block token, where the datanodes check them.
  if (encodedToken !== undefined) w.uint32((23 << 3) | 2).string(encodedToken);
  w.uint32((24 << 3) | 0).uint32(3);
  return Buffer.from(w.finish());
}

/** Calls `visit(field, reader)` for each field of the message in `bytes`; unvisited fields are skipped. */
function fields(bytes: Uint8Array, visit: (field: number, r: protobuf.Reader) => boolean): void {
  const r = protobuf.Reader.create(bytes);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (!visit(tag >>> 3, r)) r.skipType(tag & 7);
  }
}

/** A 64-bit varint as protobufjs reads it (a Long, or a number without the long package) in decimal. */
function decimal(v: number | { low: number; high: number; unsigned: boolean }): string {
  if (typeof v === 'number') return String(v);
  const n = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  return (v.unsigned ? n : BigInt.asIntN(64, n)).toString();
}

function decodeReply(bytes: Uint8Array): ReplicaBlock {
  let result = 0;
  let message = '';
  let bcsid = 0n;
  let size = 0;
  fields(bytes, (f, r) => {
    if (f === 3) result = r.int32();
    else if (f === 4) message = r.string();
    else if (f === 12)
      fields(r.bytes(), (g, r2) => {
        if (g !== 1) return false;
        fields(r2.bytes(), (h, r3) => {
          if (h === 5) size = Number(decimal(r3.int64()));
          else if (h === 1)
            fields(r3.bytes(), (i, r4) => {
              if (i !== 3) return false;
              bcsid = BigInt(decimal(r4.uint64()));
              return true;
            });
          else return false;
          return true;
        });
        return true;
      });
    else return false;
    return true;
  });
  return result === SUCCESS
    ? { result: 'SUCCESS', blockCommitSequenceId: bcsid, sizeBytes: size }
    : { result, message };
}

/** How {@link standaloneGetBlock} reaches a secure datanode. */
export interface StandaloneGetBlockOptions {
  /** TLS to the datanode. Default: plaintext. */
  tls?: {
    /** The CA's PEM certificates. */
    ca: Buffer;
    /** The name the datanode's certificate carries, when it is not the address dialled. */
    serverNameOverride?: string;
  };
}

/**
 * Sends GetBlock for the block to the datanode at `address` (its STANDALONE port) and decodes the
 * answer; the block's token (`encodedToken`) goes with it when it has one.
 */
export async function standaloneGetBlock(
  address: string,
  datanodeUuid: string,
  block: { containerId: bigint; localId: bigint; encodedToken?: string | undefined },
  options: StandaloneGetBlockOptions = {},
): Promise<ReplicaBlock> {
  const { tls } = options;
  const client = new grpc.Client(
    address,
    tls ? grpc.credentials.createSsl(tls.ca) : grpc.credentials.createInsecure(),
    tls?.serverNameOverride === undefined ? {} : { 'grpc.ssl_target_name_override': tls.serverNameOverride },
  );
  try {
    return await new Promise<ReplicaBlock>((resolve, reject) => {
      const call = client.makeBidiStreamRequest<Buffer, Buffer>(
        SEND_PATH,
        (b) => b,
        (b) => b,
        new grpc.Metadata(),
        { deadline: Date.now() + 60_000 },
      );
      call.on('data', (reply: Buffer) => {
        resolve(decodeReply(reply));
        call.cancel();
      });
      call.on('error', (err: grpc.ServiceError) => {
        if (err.code !== grpc.status.CANCELLED) reject(err);
      });
      call.write(encodeGetBlock(block.containerId, block.localId, datanodeUuid, block.encodedToken));
      call.end();
    });
  } finally {
    client.close();
  }
}
