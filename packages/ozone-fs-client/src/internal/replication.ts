// A key's replication as the client names it, puts it on the wire and reads it back: RATIS with a
// factor, or erasure coding with its config (Ozone's ReplicationConfig, ReplicationConfigValidator,
// ECReplicationConfig.configFormat; hdds DefaultReplicationConfig).
import { ErasureCodingConfigError, OzoneInvalidArgumentError } from '../ozone-errors.js';
import {
  checkEcReplicationConfig,
  parseEcReplicationConfig,
  type EcReplicationConfig,
} from './ec/ec-stripe-layout.js';
import type { ErasureCodecName } from './ec/raw-erasure-coder.js';
import { hdds, type hadoop } from './proto/wire.js';

/** A key's replication: RATIS with one or three replicas, or erasure coding. */
export type KeyReplication =
  | { readonly type: 'RATIS'; readonly factor: 'ONE' | 'THREE' }
  | { readonly type: 'EC'; readonly config: EcReplicationConfig };

/** The replication types a client setting (`ozone.replication.type`) may name for the keys it writes. */
export type WritableReplicationType = 'RATIS' | 'EC';

/**
 * `ozone.replication.allowed-configs` as Ozone 2.2.0 defaults it (ReplicationConfigValidator): a
 * Java regular expression the whole of a config's `configFormat()` must match.
 */
export const DEFAULT_REPLICATION_ALLOWED_CONFIGS =
  '^((STANDALONE|RATIS)/(ONE|THREE))|(EC/(3-2|6-3|10-4)-(512|1024|2048|4096)k)$';

/**
 * Reads Ozone's text for a replication of `type` (ReplicationConfig.parse): for RATIS a factor
 * (`ONE`, `THREE`, `1`, `3`), for EC `<codec>-<data>-<parity>-<chunk>[k]`. Without a type it is
 * told from the text: a factor is RATIS, anything else is read as an EC config.
 *
 * @throws ErasureCodingConfigError for EC text that does not parse or that the coders cannot use
 * @throws OzoneInvalidArgumentError for a RATIS factor other than one or three
 */
export function parseReplication(text: string, type?: WritableReplicationType): KeyReplication {
  const t = text.trim().toUpperCase();
  const factor = t === 'ONE' || t === '1' ? 'ONE' : t === 'THREE' || t === '3' ? 'THREE' : undefined;
  if (type === 'RATIS' || (type === undefined && factor !== undefined)) {
    if (factor === undefined)
      throw new OzoneInvalidArgumentError(
        `${JSON.stringify(text)} is not supported for RATIS replication type`,
      );
    return { type: 'RATIS', factor };
  }
  return { type: 'EC', config: parseEcReplicationConfig(text) };
}

/** Ozone's `configFormat()`: `RATIS/THREE`, or `EC/<data>-<parity>-<chunk in KiB>k` (no codec). */
export function replicationConfigFormat(r: KeyReplication): string {
  return r.type === 'RATIS'
    ? `RATIS/${r.factor}`
    : `EC/${r.config.data}-${r.config.parity}-${Math.floor(r.config.ecChunkSize / 1024)}k`;
}

/** The text form {@link parseReplication} reads back: `THREE`, `rs-3-2-1024k`. */
export function replicationText(r: KeyReplication): string {
  if (r.type === 'RATIS') return r.factor;
  const { codec, data, parity, ecChunkSize } = r.config;
  const chunk = ecChunkSize % 1024 === 0 ? `${ecChunkSize / 1024}k` : String(ecChunkSize);
  return `${codec}-${data}-${parity}-${chunk}`;
}

/** The last pattern compiled: a process has one `ozone.replication.allowed-configs`, checked at every create. */
let compiled: { source: string; pattern: RegExp } | undefined;

function allowedPattern(allowedConfigs: string): RegExp {
  if (compiled?.source !== allowedConfigs)
    compiled = { source: allowedConfigs, pattern: new RegExp(`^(?:${allowedConfigs})$`) };
  return compiled.pattern;
}

/**
 * Checks a replication against `ozone.replication.allowed-configs` as Ozone's validator does: the
 * pattern must match the whole `configFormat()`; an empty pattern allows everything.
 *
 * @throws ErasureCodingConfigError (EC) or OzoneInvalidArgumentError (RATIS) naming the pattern
 */
export function checkReplicationAllowed(r: KeyReplication, allowedConfigs: string): KeyReplication {
  if (allowedConfigs === '') return r;
  const format = replicationConfigFormat(r);
  if (allowedPattern(allowedConfigs).test(format)) return r;
  const message = `Invalid replication config ${format}. Config must match the pattern defined by ozone.replication.allowed-configs (${allowedConfigs})`;
  throw r.type === 'EC' ? new ErasureCodingConfigError(message) : new OzoneInvalidArgumentError(message);
}

/** The KeyArgs fields (CreateKey, AllocateBlock, CommitKey) that state a replication. */
export function replicationKeyArgs(
  r: KeyReplication,
): Pick<hadoop.ozone.IKeyArgs, 'type' | 'factor' | 'ecReplicationConfig'> {
  return r.type === 'RATIS'
    ? { type: hdds.ReplicationType.RATIS, factor: hdds.ReplicationFactor[r.factor] }
    : { type: hdds.ReplicationType.EC, ecReplicationConfig: ecReplicationConfigProto(r.config) };
}

/** A bucket's `defaultReplicationConfig` (BucketInfo, CreateBucket). */
export function defaultReplicationConfigProto(r: KeyReplication): hadoop.hdds.IDefaultReplicationConfig {
  return r.type === 'RATIS'
    ? { type: hdds.ReplicationType.RATIS, factor: hdds.ReplicationFactor[r.factor] }
    : { type: hdds.ReplicationType.EC, ecReplicationConfig: ecReplicationConfigProto(r.config) };
}

/** The wire form of an EC config (`hadoop.hdds.ECReplicationConfig`), the codec lower case as Ozone's toProto writes it. */
export function ecReplicationConfigProto(config: EcReplicationConfig): hadoop.hdds.IECReplicationConfig {
  return { data: config.data, parity: config.parity, codec: config.codec, ecChunkSize: config.ecChunkSize };
}

/**
 * The replication a KeyInfo or a bucket's default states, or undefined when it states none this
 * client writes (no type, NONE, STAND_ALONE).
 *
 * @throws ErasureCodingConfigError for an EC config the coders cannot use
 */
export function replicationFromProto(
  type: number | null | undefined,
  factor: number | null | undefined,
  ec: hadoop.hdds.IECReplicationConfig | null | undefined,
): KeyReplication | undefined {
  if (type === hdds.ReplicationType.EC) {
    if (!ec) throw new ErasureCodingConfigError('an EC replication without its ecReplicationConfig');
    return {
      type: 'EC',
      config: checkEcReplicationConfig({
        codec: ec.codec.toLowerCase() as ErasureCodecName,
        data: ec.data,
        parity: ec.parity,
        ecChunkSize: ec.ecChunkSize,
      }),
    };
  }
  if (type === hdds.ReplicationType.RATIS)
    return { type: 'RATIS', factor: factor === hdds.ReplicationFactor.ONE ? 'ONE' : 'THREE' };
  return undefined;
}
