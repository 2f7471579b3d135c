// Cuts the bytes a socket delivers into HTTP/2 frames. The socket reads into one buffer it reuses
// (Node's `onread`), so nothing handed on outlives the call that hands it: a DATA frame's content
// goes on in the pieces it arrived in, for the stream to copy where it belongs (the one copy of
// the bulk bytes), and any other frame's payload goes on whole, as a view when it arrived in one
// read and else assembled once.
import { HTTP2_ERROR, Http2ProtocolError } from '../grpc-http2-errors.js';
import { FLAG, FRAME, FRAME_HEADER_BYTES } from './frames.js';

/** What the reader hands on. Every Buffer is valid only during the call that passes it. */
export interface FrameSink {
  /** A whole frame other than DATA. */
  frame(type: number, flags: number, streamId: number, payload: Buffer): void;
  /** A DATA frame begins; `length` is its whole payload (padding included), which flow control counts. */
  dataStart(streamId: number, flags: number, length: number): void;
  /** Content of the DATA frame begun last (padding left out). */
  data(streamId: number, piece: Buffer): void;
  /** The DATA frame begun last is over. */
  dataEnd(streamId: number, flags: number): void;
}

const enum Phase {
  Header,
  Payload,
  PadLength,
  DataContent,
  Padding,
}

export class FrameReader {
  readonly #header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  #headerHave = 0;
  #phase = Phase.Header;
  #type = 0;
  #flags = 0;
  #streamId = 0;
  /** Bytes of the current frame's payload not yet read. */
  #left = 0;
  /** Bytes of padding after the DATA content. */
  #padding = 0;
  /** A non-DATA payload cut across reads, and how much of it is filled. */
  #payload: Buffer | undefined;
  #payloadHave = 0;

  /** @param maxFrameBytes the SETTINGS_MAX_FRAME_SIZE this side advertised: a longer frame is refused. */
  constructor(
    private readonly sink: FrameSink,
    private readonly maxFrameBytes: number,
  ) {}

  /** Whether the bytes so far end on a frame boundary. */
  get atBoundary(): boolean {
    return this.#phase === Phase.Header && this.#headerHave === 0;
  }

  /** Takes the next bytes read; throws {@link Http2ProtocolError} where they are not HTTP/2 frames. */
  push(chunk: Buffer): void {
    let at = 0;
    const n = chunk.length;
    while (at < n) {
      switch (this.#phase) {
        case Phase.Header: {
          if (this.#headerHave === 0 && n - at >= FRAME_HEADER_BYTES) {
            this.#begin(chunk, at);
            at += FRAME_HEADER_BYTES;
          } else {
            const take = Math.min(FRAME_HEADER_BYTES - this.#headerHave, n - at);
            chunk.copy(this.#header, this.#headerHave, at, at + take);
            this.#headerHave += take;
            at += take;
            if (this.#headerHave < FRAME_HEADER_BYTES) return;
            this.#headerHave = 0;
            this.#begin(this.#header, 0);
          }
          break;
        }
        case Phase.Payload: {
          const whole = this.#payload === undefined && n - at >= this.#left;
          if (whole) {
            const payload = chunk.subarray(at, at + this.#left);
            at += this.#left;
            this.#endFrame(payload);
            break;
          }
          const payload = (this.#payload ??= Buffer.allocUnsafe(this.#left));
          const take = Math.min(payload.length - this.#payloadHave, n - at);
          chunk.copy(payload, this.#payloadHave, at, at + take);
          this.#payloadHave += take;
          at += take;
          if (this.#payloadHave === payload.length) {
            this.#payload = undefined;
            this.#payloadHave = 0;
            this.#endFrame(payload);
          }
          break;
        }
        case Phase.PadLength: {
          const pad = chunk[at++] as number;
          this.#left -= 1;
          if (pad > this.#left)
            throw new Http2ProtocolError(
              HTTP2_ERROR.PROTOCOL_ERROR,
              `a DATA frame's padding (${pad} bytes) is longer than its payload`,
            );
          this.#padding = pad;
          this.#left -= pad;
          this.#afterContent();
          break;
        }
        case Phase.DataContent: {
          const take = Math.min(this.#left, n - at);
          this.#left -= take;
          const piece = chunk.subarray(at, at + take);
          at += take;
          this.sink.data(this.#streamId, piece);
          if (this.#left === 0) this.#afterContent();
          break;
        }
        case Phase.Padding: {
          const take = Math.min(this.#padding, n - at);
          this.#padding -= take;
          at += take;
          if (this.#padding === 0) this.#dataDone();
          break;
        }
      }
    }
  }

  #begin(source: Buffer, at: number): void {
    const length = (source[at]! << 16) | (source[at + 1]! << 8) | source[at + 2]!;
    this.#type = source[at + 3]!;
    this.#flags = source[at + 4]!;
    this.#streamId = source.readUInt32BE(at + 5) & 0x7fffffff;
    if (length > this.maxFrameBytes)
      throw new Http2ProtocolError(
        HTTP2_ERROR.FRAME_SIZE_ERROR,
        `a frame of ${length} bytes, more than the ${this.maxFrameBytes} allowed (SETTINGS_MAX_FRAME_SIZE)`,
      );
    this.#left = length;
    if (this.#type !== FRAME.DATA) {
      this.#phase = Phase.Payload;
      if (length === 0) this.#endFrame(Buffer.alloc(0));
      return;
    }
    if (this.#streamId === 0)
      throw new Http2ProtocolError(HTTP2_ERROR.PROTOCOL_ERROR, 'a DATA frame on stream 0');
    this.sink.dataStart(this.#streamId, this.#flags, length);
    if (this.#flags & FLAG.PADDED) {
      if (length === 0)
        throw new Http2ProtocolError(
          HTTP2_ERROR.FRAME_SIZE_ERROR,
          'a padded DATA frame without its pad length',
        );
      this.#phase = Phase.PadLength;
      return;
    }
    this.#padding = 0;
    this.#afterContent();
  }

  /** After the pad length (or at the start of an unpadded frame): content, padding or the end. */
  #afterContent(): void {
    if (this.#left > 0) this.#phase = Phase.DataContent;
    else if (this.#padding > 0) this.#phase = Phase.Padding;
    else this.#dataDone();
  }

  #dataDone(): void {
    this.#phase = Phase.Header;
    this.sink.dataEnd(this.#streamId, this.#flags);
  }

  #endFrame(payload: Buffer): void {
    this.#phase = Phase.Header;
    this.sink.frame(this.#type, this.#flags, this.#streamId, payload);
  }
}
