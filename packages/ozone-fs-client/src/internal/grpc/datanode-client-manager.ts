import type { ChannelCredentials } from '@grpc/grpc-js';
import { OzoneClosedError } from '../../ozone-errors.js';
import type { DatanodeTransport } from '../../ozone-client-config.js';
import type { ClientTlsOptions } from './channel-options.js';
import { DatanodeChannel } from './datanode-channel.js';
import { noStreamStats, type DatanodeStreamStats } from './datanode-stream-pool.js';
import { ReceiveBufferPool } from './receive-buffer-pool.js';

/** Free receive buffers are dropped after this long without a read. */
const RECEIVE_BUFFERS_IDLE_MS = 1000;
/** The receive buffers kept for reuse without streaming ReadBlock: 16 readers' 1 MiB answers. */
export const DEFAULT_RECEIVE_BUFFERS_MAX_FREE_BYTES = 16 * 1024 * 1024;

/** The XceiverClientManager analogue: one cached channel per datanode address. */
export class DatanodeClientManager {
  readonly #channels = new Map<string, DatanodeChannel>();
  #closed = false;
  #warmCredentials: ChannelCredentials | undefined;
  /** The buffers every channel's HTTP/2 session assembles answers in (`http2-stream-pool`, `socket-stream-pool`). */
  readonly #receiveBuffers: ReceiveBufferPool | undefined;
  constructor(
    private readonly options: {
      maxReceiveBytes: number;
      maxInFlight: number;
      tls: ClientTlsOptions | undefined;
      reconnectBackoffMs: number;
      transport?: DatanodeTransport;
      streamsPerChannel?: number;
      streamIdleMs?: number;
      http2MaxFrameBytes?: number;
      /** Most bytes of free receive buffers kept for reuse (default {@link DEFAULT_RECEIVE_BUFFERS_MAX_FREE_BYTES}). */
      receiveBuffersMaxFreeBytes?: number;
    },
  ) {
    if (options.transport === 'http2-stream-pool' || options.transport === 'socket-stream-pool')
      this.#receiveBuffers = new ReceiveBufferPool({
        maxFreeBytes: options.receiveBuffersMaxFreeBytes ?? DEFAULT_RECEIVE_BUFFERS_MAX_FREE_BYTES,
        idleMs: RECEIVE_BUFFERS_IDLE_MS,
      });
  }

  channel(address: string): DatanodeChannel {
    if (this.#closed) throw new OzoneClosedError('the datanode client manager');
    let channel = this.#channels.get(address);
    if (!channel) {
      channel = new DatanodeChannel(address, {
        ...this.options,
        credentials: this.#warmCredentials,
        receiveBuffers: this.#receiveBuffers,
      });
      this.#channels.set(address, channel);
    }
    return channel;
  }

  /**
   * Credentials the warm-up built from the same CA file; channels created afterwards use them
   * instead of reading the CA themselves. Until then (or if the warm-up failed) each channel
   * builds its own, as it always has.
   */
  offerCredentials(credentials: ChannelCredentials): void {
    if (!this.#closed) this.#warmCredentials ??= credentials;
  }

  /** Whether channels created now use the warm-up's credentials. */
  get hasWarmCredentials(): boolean {
    return this.#warmCredentials !== undefined;
  }

  /** The stream pools' counters summed over every channel (zeros with `call-per-request`). */
  streamStats(): DatanodeStreamStats {
    const sum = noStreamStats();
    for (const channel of this.#channels.values()) {
      const s = channel.streamStats;
      if (!s) continue;
      for (const k of Object.keys(sum) as Array<keyof DatanodeStreamStats>) sum[k] += s[k];
    }
    return sum;
  }

  get size(): number {
    return this.#channels.size;
  }

  close(): void {
    this.#closed = true;
    for (const c of this.#channels.values()) c.close();
    this.#channels.clear();
    this.#receiveBuffers?.clear();
  }
}
