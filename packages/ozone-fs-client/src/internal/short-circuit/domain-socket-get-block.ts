// GetBlock over a datanode's Unix domain socket (Ozone's XceiverClientShortCircuit): one
// connection per call, the request framed as Ozone's Receiver reads it, the answer checked
// (version, command, callId, result, access granted), then the magic byte that carries the block
// file's descriptor. Any deviation is a ShortCircuitError, and every descriptor received on the
// way is closed unless it is the one handed back.
import { setTimeout as sleep } from 'node:timers/promises';
import { ShortCircuitError } from '../../ozone-errors.js';
import { dn, toBigInt, type hadoop } from '../proto/wire.js';
import type { UnixFd } from '../unix-fd/unix-fd.js';
import { UnixFdCallError } from '../unix-fd/unix-fd.js';
import { DATA_TRANSFER_MAGIC_CODE, decodeFrame, encodeFrame, FrameError } from './domain-socket-frame.js';

const RECEIVE_BYTES = 64 * 1024;

export interface DomainSocketGetBlockResult {
  blockData: hadoop.hdds.datanode.IBlockData;
  /** The block file's descriptor; the caller owns it. */
  fd: number;
}

/** Sends GetBlock with `requestShortCircuitAccess` on `socketPath` and returns the block data and the block file's descriptor. */
export async function domainSocketGetBlock(
  unixFd: UnixFd,
  socketPath: string,
  request: hadoop.hdds.datanode.IContainerCommandRequestProto,
  timeoutMs: number,
): Promise<DomainSocketGetBlockResult> {
  const where = `domain socket ${socketPath}`;
  const deadline = Date.now() + timeoutMs;
  const received: number[] = [];
  let socket: number | undefined;
  try {
    socket = unixFd.connect(socketPath);
    const frame = encodeFrame(dn.Type.GetBlock, dn.ContainerCommandRequestProto.encode(request).finish());
    for (let rest = frame; rest.length > 0;) {
      try {
        rest = rest.subarray(unixFd.send(socket, rest, []));
      } catch (err) {
        if (!(err instanceof UnixFdCallError && err.code === 'EAGAIN') || Date.now() > deadline) throw err;
        await sleep(1);
      }
    }
    let input: Buffer = Buffer.alloc(0);
    const more = async (what: string): Promise<void> => {
      const r = await unixFd.receive(socket as number, RECEIVE_BYTES, Math.max(0, deadline - Date.now()));
      received.push(...r.fds);
      if (r.data.length === 0)
        throw new ShortCircuitError(where, `the datanode closed the connection before ${what}`);
      input = input.length === 0 ? r.data : Buffer.concat([input, r.data]);
    };
    let answer;
    while (!(answer = decodeFrame(input))) await more('its answer');
    let response: hadoop.hdds.datanode.ContainerCommandResponseProto;
    try {
      response = dn.ContainerCommandResponseProto.decode(answer.message);
    } catch (err) {
      throw new ShortCircuitError(where, `an answer that is not a ContainerCommandResponseProto`, err);
    }
    // The frame's short is a plain number; the message's field is the enum.
    if (answer.cmdType !== Number(dn.Type.GetBlock) || response.cmdType !== dn.Type.GetBlock)
      throw new ShortCircuitError(where, `answered command ${response.cmdType} to GetBlock`);
    if (
      request.callId != null &&
      (response.callId == null || toBigInt(response.callId) !== toBigInt(request.callId))
    )
      throw new ShortCircuitError(
        where,
        `answered callId ${response.callId == null ? 'none' : String(toBigInt(response.callId))} to ${String(toBigInt(request.callId))}`,
      );
    if (response.result !== dn.Result.SUCCESS)
      throw new ShortCircuitError(
        where,
        `GetBlock answered ${dn.Result[response.result] ?? response.result}${response.message ? `: ${response.message}` : ''}`,
      );
    if (!response.getBlock?.shortCircuitAccessGranted)
      throw new ShortCircuitError(where, 'the datanode did not grant short-circuit access');
    let rest = input.subarray(answer.frameBytes);
    while (rest.length === 0) {
      await more('the block file descriptor');
      rest = input.subarray(answer.frameBytes);
    }
    if (rest[0] !== DATA_TRANSFER_MAGIC_CODE)
      throw new ShortCircuitError(
        where,
        `byte ${rest[0]} where the descriptor's magic code ${DATA_TRANSFER_MAGIC_CODE} belongs`,
      );
    const fd = received.shift();
    if (fd === undefined) throw new ShortCircuitError(where, 'the magic code came without a descriptor');
    return { blockData: response.getBlock.blockData, fd };
  } catch (err) {
    for (const fd of received) unixFd.close(fd);
    received.length = 0;
    if (err instanceof ShortCircuitError) throw err;
    const reason =
      err instanceof UnixFdCallError
        ? err.code === 'ETIMEDOUT'
          ? `no answer within ${timeoutMs} ms`
          : `${err.syscall}: ${err.code}`
        : err instanceof FrameError
          ? err.message
          : (err as Error).message;
    throw new ShortCircuitError(where, reason, err);
  } finally {
    for (const fd of received) unixFd.close(fd);
    if (socket !== undefined) unixFd.close(socket);
  }
}
