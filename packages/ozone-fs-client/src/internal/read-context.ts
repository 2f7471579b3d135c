import type { Clock } from '@fastpath/core';
import type { OzoneClientConfig } from '../ozone-client-config.js';
import { datanodeReconnectBackoffMs, type ClientTlsOptions } from './grpc/channel-options.js';
import {
  DatanodeClientManager,
  DEFAULT_RECEIVE_BUFFERS_MAX_FREE_BYTES,
} from './grpc/datanode-client-manager.js';
import { JS_BULK_ENGINE, resolveBulkEngine, type BulkEngine } from './bulk/bulk-engine.js';
import { ShortCircuitReads } from './short-circuit/short-circuit-reads.js';

/** What the reads of a key stream need: the configuration, the datanode channels and, when on, short-circuit reads. */
export interface ReadContext {
  readonly config: Readonly<OzoneClientConfig>;
  readonly datanodes: DatanodeClientManager;
  /** Present when `ozone.client.read.short-circuit` is on. */
  readonly shortCircuit: ShortCircuitReads | undefined;
  /** Who computes CRCs and copies written bytes (`ozone.client.bulk.engine`). */
  readonly bulk: BulkEngine;
}

/** What a read context is built from; plain data, so that a read worker thread can be sent it. */
export interface ReadContextOptions {
  config: Readonly<OzoneClientConfig>;
  tls: ClientTlsOptions | undefined;
  maxReceiveBytes: number;
}

/** The engine of a validated config (one naming `native` was refused while the addon is missing). */
function bulkEngineOf(config: Readonly<OzoneClientConfig>): BulkEngine {
  const engine = resolveBulkEngine(config.bulkEngine);
  return 'unavailable' in engine ? JS_BULK_ENGINE : engine;
}

/** The datanode side of a client: one channel per datanode, and short-circuit reads when on. */
export function createReadContext(options: ReadContextOptions, clock: Clock): ReadContext {
  const { config } = options;
  return {
    config,
    datanodes: new DatanodeClientManager({
      maxReceiveBytes: options.maxReceiveBytes,
      maxInFlight: config.maxOutstandingRequests,
      tls: options.tls,
      reconnectBackoffMs: datanodeReconnectBackoffMs(config.readRetryIntervalMs),
      transport: config.datanodeTransport,
      streamsPerChannel: config.datanodeStreamsPerChannel,
      streamIdleMs: config.datanodeStreamIdleMs,
      http2MaxFrameBytes: config.datanodeHttp2MaxFrameBytes,
      receiveBuffersMaxFreeBytes: receiveBuffersMaxFreeBytes(config),
    }),
    shortCircuit: config.shortCircuitEnabled ? new ShortCircuitReads(config, clock) : undefined,
    bulk: bulkEngineOf(config),
  };
}

/**
 * The receive buffers a client keeps for reuse: 16 MiB, and with streaming ReadBlock at least a
 * sequential reader's pre-read and the read itself (its pieces are held until read, then reused
 * for the next ReadBlock's).
 */
function receiveBuffersMaxFreeBytes(config: Readonly<OzoneClientConfig>): number {
  if (!config.streamReadBlockEnabled) return DEFAULT_RECEIVE_BUFFERS_MAX_FREE_BYTES;
  const held = config.streamReadPreReadSizeBytes + 4 * config.streamReadResponseDataSizeBytes;
  return Math.max(DEFAULT_RECEIVE_BUFFERS_MAX_FREE_BYTES, held);
}
