import { OzoneClosedError } from '../../ozone-errors.js';
import type { ClientTlsOptions } from './channel-options.js';
import { DatanodeChannel } from './datanode-channel.js';

/** The XceiverClientManager analogue: one cached channel per datanode address. */
export class DatanodeClientManager {
  readonly #channels = new Map<string, DatanodeChannel>();
  #closed = false;
  constructor(
    private readonly options: {
      maxReceiveBytes: number;
      maxInFlight: number;
      tls: ClientTlsOptions | undefined;
    },
  ) {}

  channel(address: string): DatanodeChannel {
    if (this.#closed) throw new OzoneClosedError('the datanode client manager');
    let channel = this.#channels.get(address);
    if (!channel) {
      channel = new DatanodeChannel(address, this.options);
      this.#channels.set(address, channel);
    }
    return channel;
  }

  get size(): number {
    return this.#channels.size;
  }

  close(): void {
    this.#closed = true;
    for (const c of this.#channels.values()) c.close();
    this.#channels.clear();
  }
}
