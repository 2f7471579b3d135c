// When hflush()/hsync() are Ozone's hsync, and when they are refused, as Ozone 2.2.0's client
// decides: OzoneFSUtils#canEnableHsync (both client settings on) picks between hsync and a plain
// flush; KeyOutputStream#hsync then refuses keys it cannot hsync.
import type { OzoneClientConfig } from '../../ozone-client-config.js';
import type { KeyReplication } from '../replication.js';

/**
 * True when `ozone.client.hbase.enhancements.allowed` and `ozone.fs.hsync.enabled` are both on;
 * otherwise Ozone's OzoneOutputStream#hsync runs `flush()` instead.
 */
export function canEnableHsync(
  config: Pick<OzoneClientConfig, 'hbaseEnhancementsAllowed' | 'hsyncEnabled'>,
): boolean {
  return config.hbaseEnhancementsAllowed && config.hsyncEnabled;
}

/**
 * Why a key cannot be hsync'ed, or undefined when it can. Ozone refuses replication with a single
 * replica ("The replication factor = 1 <= 1"), and its EC writer has no hsync at all
 * (ECKeyOutputStream#hsync and #hflush throw NotImplementedException).
 */
export function hsyncRefusal(replication: KeyReplication): string | undefined {
  if (replication.type === 'EC')
    return "an erasure-coded key cannot be hsync'ed (Ozone's EC writer has no hsync)";
  return replication.factor === 'ONE'
    ? 'the replication factor = 1 <= 1 (hsync needs RATIS with 3 replicas)'
    : undefined;
}

/**
 * Whether Java's `flush()` flushes now (a PutBlock for what is new, then waits for the block's
 * watches): with `ozone.client.stream.buffer.flush.delay` only once a chunk's worth
 * (`ozone.client.stream.buffer.size`) is written past the last PutBlock, without it always.
 */
export function flushDue(
  config: Pick<OzoneClientConfig, 'flushDelay' | 'chunkSizeBytes'>,
  unflushedBytes: number,
): boolean {
  return !config.flushDelay || unflushedBytes >= config.chunkSizeBytes;
}
