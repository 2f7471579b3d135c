// One streaming ReadBlock (Ozone 2.2.0): one request on a `send` stream of its own, answered by a
// run of pieces, each a ContainerCommandResponseProto carrying a block offset, data, and the
// stored checksums of the data's windows. The datanode's stream keeps the block file its first
// ReadBlock opened, so a stream is never shared with another block or request: it is opened here
// and ended when the last piece asked for has come.
import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  ChecksumMismatchError,
  DatanodeResultError,
  OzoneError,
  OzoneProtocolError,
  type ChunkLocation,
} from '../ozone-errors.js';
import {
  CHECKSUM_TYPE_VALUES,
  findChecksumMismatch,
  type ChecksumTypeName,
  type CrcKernel,
} from './checksum.js';
import type { DatanodeCall } from './grpc/datanode-call.js';
import { rpcError } from './grpc/grpc-errors.js';
import { decodeContainerAnswer } from './proto/decode-container-answer.js';
import { dn } from './proto/wire.js';
import type { ReadBlockRange } from './read-block-plan.js';

export interface BlockStreamReaderOptions {
  /** The datanode's `host:port`, for errors. */
  address: string;
  /** The request, encoded. */
  request: Buffer;
  range: ReadBlockRange;
  /** The block's checksum type and window, as GetBlock listed them; every piece must carry the same. */
  checksumType: ChecksumTypeName;
  bytesPerChecksum: number;
  /** Check each piece's windows against its checksums. */
  verify: boolean;
  /** Computes the windows' CRCs. */
  crc: CrcKernel;
  /** The longest wait for the next piece (`ozone.client.stream.read.timeout`). */
  pieceTimeoutMs: number;
  /** The chunk that holds a block offset, for a checksum error's location. */
  locate(blockOffset: number): ChunkLocation;
  /** Told of each piece as it is accepted (counters). */
  onPiece(bytes: number): void;
}

interface Piece {
  /** Block offset of data[0]. */
  offset: number;
  data: Buffer;
  /** The message `data` is a view of, handed back to the call once the piece is read out. */
  message: Buffer;
}

/**
 * Receives the pieces of one ReadBlock, checks them as they come (the offset each must start at,
 * its size, its checksums when verifying) and copies the bytes callers ask for from where they
 * arrived into their buffers. Reads must move forward: pieces before a read's start are dropped.
 * The pieces past what was read stay (a sequential reader's pre-read) until the next read or
 * {@link close}. A piece read out, dropped or refused is handed back to the call
 * ({@link DatanodeCall.release}): its memory may carry a later piece, so nothing keeps a view of it.
 */
export class BlockStreamReader {
  readonly #options: BlockStreamReaderOptions;
  readonly #call: DatanodeCall;
  readonly #pieces: Piece[] = [];
  /** Block offset up to which pieces arrived. */
  #received: number;
  #failure: OzoneError | undefined;
  #wake: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #state: 'streaming' | 'complete' | 'closed' = 'streaming';

  constructor(call: DatanodeCall, options: BlockStreamReaderOptions) {
    this.#options = options;
    this.#call = call;
    this.#received = options.range.alignedOffset;
    call.on('data', (raw: Buffer) => this.#onPiece(raw));
    call.on('error', (err) => this.#fail(rpcError(options.address, err)));
    call.on('end', () => {
      if (this.#state === 'streaming')
        this.#fail(
          new OzoneProtocolError(
            options.address,
            `the ReadBlock stream ended at ${this.#received}, before ${options.range.end}`,
          ),
        );
    });
    call.write(options.request);
    this.#arm();
  }

  /** The block offsets this stream can still serve: from its oldest kept piece to the range's end. */
  canServe(start: number, length: number): boolean {
    const from = this.#pieces[0]?.offset ?? this.#received;
    return this.#failure === undefined && start >= from && start + length <= this.#options.range.end;
  }

  /** Whether every byte it will ever hold has been read out. */
  get drained(): boolean {
    return this.#state !== 'streaming' && this.#pieces.length === 0;
  }

  /** Copies block bytes [start, start + length) into `target[targetOffset…]`, waiting for their pieces. */
  async read(start: number, target: Uint8Array, targetOffset: number, length: number): Promise<void> {
    const end = start + length;
    if (!this.canServe(start, length))
      throw new OzoneProtocolError(
        this.#options.address,
        `a ReadBlock stream over ${this.#options.range.alignedOffset}-${this.#options.range.end} asked for ${start}+${length}`,
      );
    let at = start;
    while (at < end) {
      const piece = this.#pieces[0];
      if (piece === undefined) {
        if (this.#failure) throw this.#failure;
        if (this.#state === 'closed')
          throw new OzoneProtocolError(this.#options.address, 'the ReadBlock stream is closed');
        await new Promise<void>((resolve) => (this.#wake = resolve));
        continue;
      }
      const pieceEnd = piece.offset + piece.data.length;
      if (pieceEnd <= at) {
        this.#dropFirst();
        continue;
      }
      const n = Math.min(pieceEnd, end) - at;
      target.set(piece.data.subarray(at - piece.offset, at - piece.offset + n), targetOffset + (at - start));
      at += n;
      if (at >= pieceEnd) this.#dropFirst();
    }
  }

  #dropFirst(): void {
    const piece = this.#pieces.shift();
    if (piece) this.#call.release?.(piece.message);
  }

  /** Ends the stream: half-closed once complete (the datanode ends it), cancelled before. */
  close(): void {
    if (this.#state === 'closed') return;
    const streaming = this.#state === 'streaming';
    this.#state = 'closed';
    for (const piece of this.#pieces) this.#call.release?.(piece.message);
    this.#pieces.length = 0;
    this.#disarm();
    if (streaming) this.#call.cancel();
    this.#wake?.();
  }

  #onPiece(raw: Buffer): void {
    if (this.#state !== 'streaming') {
      this.#call.release?.(raw);
      return;
    }
    const { address, range } = this.#options;
    let kept = false;
    try {
      const answer = decodeContainerAnswer(raw, address);
      if (answer.cmdType !== (dn.Type.ReadBlock as number))
        throw new OzoneProtocolError(address, `a ReadBlock stream answered command ${answer.cmdType}`);
      if (answer.result !== (dn.Result.SUCCESS as number))
        throw new DatanodeResultError(
          address,
          'ReadBlock',
          dn.Result[answer.result] ?? `unknown result ${answer.result}`,
          answer.message ?? '',
        );
      const body = answer.readBlock;
      if (!body) throw new OzoneProtocolError(address, 'ReadBlock answered without a readBlock body');
      const { offset, data } = body;
      if (offset !== this.#received || data.length === 0 || data.length > range.responseDataSize)
        throw new OzoneProtocolError(
          address,
          `ReadBlock sent ${data.length} bytes at ${offset}, expected up to ${range.responseDataSize} at ${this.#received}`,
        );
      this.#verify(offset, data, body.checksumData);
      this.#received = offset + data.length;
      this.#pieces.push({ offset, data, message: raw });
      kept = true;
      this.#options.onPiece(data.length);
      if (this.#received >= range.end) {
        // Everything asked for is here: the datanode ends the stream after our half-close.
        this.#state = 'complete';
        this.#disarm();
        this.#call.end();
      } else this.#arm();
    } catch (err) {
      if (!(err instanceof OzoneError)) throw err;
      this.#fail(err);
    } finally {
      if (!kept) this.#call.release?.(raw);
    }
    this.#wake?.();
  }

  #verify(
    offset: number,
    data: Buffer,
    cd: { type: number; bytesPerChecksum: number; checksums: Uint8Array[] },
  ): void {
    const { verify, checksumType, bytesPerChecksum, address } = this.#options;
    if (!verify || checksumType === 'NONE') return;
    // The piece must be checked as the block's checksums were made: a piece that claims another
    // type or window (NONE, say) would otherwise pass unchecked.
    if (cd.type !== CHECKSUM_TYPE_VALUES[checksumType] || cd.bytesPerChecksum !== bytesPerChecksum)
      throw new OzoneProtocolError(
        address,
        `a ReadBlock piece at ${offset} carries checksum type ${cd.type} per ${cd.bytesPerChecksum} bytes, the block ${checksumType} per ${bytesPerChecksum}`,
      );
    const bad = findChecksumMismatch(
      checksumType,
      bytesPerChecksum,
      cd.checksums,
      data,
      0,
      this.#options.crc,
    );
    if (bad) {
      const at = offset + bad.window * bytesPerChecksum;
      throw new ChecksumMismatchError(address, this.#options.locate(at), bad.detail);
    }
  }

  #fail(error: OzoneError): void {
    if (this.#state !== 'streaming') return;
    this.#failure = error;
    this.#state = 'closed';
    this.#disarm();
    this.#call.cancel();
    this.#wake?.();
  }

  /** (Re)starts the wait for the next piece. */
  #arm(): void {
    this.#disarm();
    const { address, pieceTimeoutMs } = this.#options;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#fail(
        rpcError(address, {
          code: GrpcStatus.DEADLINE_EXCEEDED,
          details: `no ReadBlock piece for ${pieceTimeoutMs} ms after offset ${this.#received}`,
        }),
      );
    }, pieceTimeoutMs);
    // The open call holds the process while the read waits; the timer need not.
    this.#timer.unref();
  }

  #disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
