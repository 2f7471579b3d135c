// The content of a Ratis request that carries a container command, as Ozone's datanodes read it
// (ContainerCommandRequestMessage): a 4-byte big-endian length N, the ContainerCommandRequestProto
// of N bytes without its bulk data, then the bulk data. Keeping the chunk's bytes outside the
// protobuf lets the datanode's state machine write them to disk without parsing them as a field.
import { OzoneInvalidArgumentError, OzoneProtocolError } from '../../ozone-errors.js';
import { CLIENT_VERSION } from '../grpc/om-transport.js';
import { dn, has, type hadoop } from '../proto/wire.js';

type ContainerCommandRequest = hadoop.hdds.datanode.IContainerCommandRequestProto;

const LENGTH_BYTES = 4;

/**
 * A container command as Ratis message content, in pieces: the length prefix with the header,
 * then WriteChunk's `data` as it is (not copied: the Ratis client writes the pieces into its one
 * request buffer). `pipelineID` is left out: a datanode fails the whole Ratis stream when it
 * differs from the group's UUID string, and fills it in itself when absent.
 *
 * @throws OzoneInvalidArgumentError for a WriteChunk without data (a datanode fails the stream on one).
 */
export function containerCommandMessagePieces(request: ContainerCommandRequest): Uint8Array[] {
  const { pipelineID: _ignored, ...rest } = request;
  let payload: Uint8Array | undefined;
  let header: ContainerCommandRequest = rest;
  if (request.writeChunk) {
    const { data, ...writeChunk } = request.writeChunk;
    // A StreamInit carries a WriteChunk that only names the block: no data, and none expected.
    if (request.cmdType === dn.Type.WriteChunk && (!data || data.length === 0))
      throw new OzoneInvalidArgumentError(
        'a WriteChunk sent through Ratis needs data (an empty one fails the stream)',
      );
    if (data && data.length > 0) payload = data;
    header = { ...rest, writeChunk };
  }
  const headerBytes = dn.ContainerCommandRequestProto.encode(header).finish();
  const head = Buffer.allocUnsafe(LENGTH_BYTES + headerBytes.length);
  head.writeUInt32BE(headerBytes.length, 0);
  head.set(headerBytes, LENGTH_BYTES);
  return payload ? [head, payload] : [head];
}

/** {@link containerCommandMessagePieces} joined into one buffer. */
export function encodeContainerCommandMessage(request: ContainerCommandRequest): Buffer {
  return Buffer.concat(containerCommandMessagePieces(request));
}

/**
 * Decodes Ratis message content back into the container command, WriteChunk's `data` a view of
 * the payload; `version` is 3 when the sender left it out, as a datanode assumes.
 *
 * @param from who sent it, for the error message.
 * @throws OzoneProtocolError for content shorter than its length prefix says, or a header that is not a command.
 */
export function decodeContainerCommandMessage(content: Uint8Array, from: string): ContainerCommandRequest {
  if (content.length < LENGTH_BYTES)
    throw new OzoneProtocolError(
      from,
      `a container-command message of ${content.length} bytes has no length prefix`,
    );
  const view = Buffer.from(content.buffer, content.byteOffset, content.length);
  const headerLength = view.readUInt32BE(0);
  if (headerLength > view.length - LENGTH_BYTES)
    throw new OzoneProtocolError(
      from,
      `a container-command message says its header has ${headerLength} bytes, but ${view.length - LENGTH_BYTES} follow`,
    );
  let header: hadoop.hdds.datanode.ContainerCommandRequestProto;
  try {
    header = dn.ContainerCommandRequestProto.decode(view.subarray(LENGTH_BYTES, LENGTH_BYTES + headerLength));
  } catch (err) {
    throw new OzoneProtocolError(
      from,
      'a container-command header that is not a ContainerCommandRequestProto',
      err,
    );
  }
  const payload = view.subarray(LENGTH_BYTES + headerLength);
  const request: ContainerCommandRequest = header;
  if (!has(header, 'version')) request.version = CLIENT_VERSION;
  if (payload.length > 0) {
    if (!request.writeChunk)
      throw new OzoneProtocolError(
        from,
        `a ${dn.Type[header.cmdType] ?? header.cmdType} message with a payload of ${payload.length} bytes`,
      );
    request.writeChunk.data = payload;
  }
  return request;
}
