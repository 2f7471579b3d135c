import { connectivityState, Metadata, type Client } from '@grpc/grpc-js';
import type { DatanodeCall, DatanodeConnection } from './datanode-call.js';
import { DATANODE_SEND_PATH } from './datanode-stream.js';
import { rawBytes } from './raw-bytes.js';

/** A datanode channel's calls through grpc-js (`stream-pool`). */
export class GrpcJsConnection implements DatanodeConnection {
  #watching = false;
  #lastState: connectivityState | undefined;
  constructor(private readonly client: Client) {}

  openCall(): DatanodeCall {
    return this.client.makeBidiStreamRequest(DATANODE_SEND_PATH, rawBytes, rawBytes, new Metadata());
  }

  /** Follows the channel's connectivity: READY to anything else is a connection lost. */
  watchLoss(onLost: () => void, keepWatching: () => boolean): void {
    if (this.#watching) return;
    const channel = this.client.getChannel();
    const state = channel.getConnectivityState(false);
    if (state === connectivityState.SHUTDOWN) return;
    this.#lastState = state;
    this.#watching = true;
    channel.watchConnectivityState(state, Infinity, () => {
      this.#watching = false;
      const now = channel.getConnectivityState(false);
      if (this.#lastState === connectivityState.READY && now !== connectivityState.READY) onLost();
      if (keepWatching()) this.watchLoss(onLost, keepWatching);
    });
  }

  close(): void {
    // The channel belongs to the datanode channel, which closes it.
  }
}
