// Erasure-coded keys in the mini OM: the replication config a key asks for, or else its bucket's
// default, checked as Ozone's OM checks it (OzoneConfigUtil.resolveReplicationConfigPreference,
// ReplicationConfigValidator); the datanodes of a new block group, kept away from what the
// client's exclude list names (SCM's WritableECContainerProvider); and the pipeline fields of an
// EC block group (members numbered 1..d+p in list order, as SCM's ECPipelineProvider.create
// numbers them).
import { ErasureCodingConfigError } from '../ozone-errors.js';
import { checkEcReplicationConfig, type EcReplicationConfig } from '../internal/ec/ec-stripe-layout.js';
import type { ErasureCodecName } from '../internal/ec/raw-erasure-coder.js';
import { hdds, type hadoop } from '../internal/proto/wire.js';
import { DEFAULT_REPLICATION_ALLOWED_CONFIGS as DEFAULT_ALLOWED_PATTERN } from '../internal/replication.js';

/** A bucket's default replication as the mini OM keeps it (BucketInfo.defaultReplicationConfig). */
export type StoredReplication = { type: 'RATIS'; factor: 1 | 3 } | { type: 'EC'; ec: EcReplicationConfig };

/**
 * The replication a CreateKey or CreateFile resolves to (Ozone's resolveReplicationConfigPreference):
 * the key's own when its type is set (not NONE), else its bucket's default, else the OM's own
 * (RATIS/THREE here). Returned as KeyArgs replication fields.
 */
export function resolvedKeyArgs(
  a: hadoop.ozone.IKeyArgs,
  bucketDefault: StoredReplication | undefined,
): hadoop.ozone.IKeyArgs {
  const asked = a.type !== undefined && a.type !== null && a.type !== hdds.ReplicationType.NONE;
  if (asked || !bucketDefault) return a;
  return bucketDefault.type === 'EC'
    ? { ...a, type: hdds.ReplicationType.EC, ecReplicationConfig: ecConfigProto(bucketDefault.ec) }
    : {
        ...a,
        type: hdds.ReplicationType.RATIS,
        factor: bucketDefault.factor === 1 ? hdds.ReplicationFactor.ONE : hdds.ReplicationFactor.THREE,
      };
}

/**
 * A CreateBucket's default replication, checked as a key's is (OMBucketCreateRequest). Throws an
 * {@link EcRefusal} for one the OM refuses.
 */
export function bucketDefaultReplication(
  d: hadoop.hdds.IDefaultReplicationConfig | null | undefined,
  allowedConfigs: RegExp,
): StoredReplication | undefined {
  if (!d) return undefined;
  if (d.type === hdds.ReplicationType.EC) {
    const ec = requestedEcConfig(
      {
        volumeName: '',
        bucketName: '',
        keyName: '',
        type: d.type,
        ecReplicationConfig: d.ecReplicationConfig ?? null,
      },
      allowedConfigs,
    );
    return ec && { type: 'EC', ec };
  }
  if (d.type === hdds.ReplicationType.RATIS)
    return { type: 'RATIS', factor: d.factor === hdds.ReplicationFactor.ONE ? 1 : 3 };
  throw new EcRefusal(`a bucket default replication of type ${hdds.ReplicationType[d.type] ?? d.type}`);
}

/** The wire form of a bucket's default replication. */
export function defaultReplicationProto(r: StoredReplication): hadoop.hdds.IDefaultReplicationConfig {
  return r.type === 'EC'
    ? { type: hdds.ReplicationType.EC, ecReplicationConfig: ecConfigProto(r.ec) }
    : {
        type: hdds.ReplicationType.RATIS,
        factor: r.factor === 1 ? hdds.ReplicationFactor.ONE : hdds.ReplicationFactor.THREE,
      };
}

/**
 * The datanodes of a new EC block group: the first `width` (in the cluster's order) of those the
 * client did not exclude whose pipeline it did not exclude either, as SCM picks another pipeline
 * when the open ones are excluded. Undefined when no such set is left.
 */
export function chooseEcDatanodes(
  datanodes: readonly string[],
  width: number,
  excludedDatanodes: ReadonlySet<string>,
  pipelineExcluded: (members: readonly string[]) => boolean,
): string[] | undefined {
  const candidates = datanodes.filter((uuid) => !excludedDatanodes.has(uuid));
  const chosen: string[] = [];
  const search = (from: number): boolean => {
    if (chosen.length === width) return !pipelineExcluded(chosen);
    for (let i = from; i <= candidates.length - (width - chosen.length); i++) {
      chosen.push(candidates[i]!);
      if (search(i + 1)) return true;
      chosen.pop();
    }
    return false;
  };
  return search(0) ? chosen : undefined;
}

/**
 * `ozone.replication.allowed-configs` as Ozone 2.2.0 defaults it (ReplicationConfigValidator),
 * matched against the whole config format as Java's `matches()` does.
 */
export const DEFAULT_REPLICATION_ALLOWED_CONFIGS = new RegExp(`^(?:${DEFAULT_ALLOWED_PATTERN})$`);

/**
 * The EC config a CreateKey/CreateFile asks for: undefined for a replicated key, else the checked
 * config. Throws a string (the OM's INVALID_REQUEST message) for an EC request it refuses.
 */
export function requestedEcConfig(
  a: hadoop.ozone.IKeyArgs,
  allowedConfigs: RegExp,
): EcReplicationConfig | undefined {
  if (a.type !== hdds.ReplicationType.EC) return undefined;
  const p = a.ecReplicationConfig;
  if (!p) throw new EcRefusal('EC replication type without an ecReplicationConfig');
  let config: EcReplicationConfig;
  try {
    // The codec arrives lower case; Ozone upper-cases it before matching, so either case parses.
    config = checkEcReplicationConfig({
      codec: p.codec.toLowerCase() as ErasureCodecName,
      data: p.data,
      parity: p.parity,
      ecChunkSize: p.ecChunkSize,
    });
  } catch (err) {
    if (err instanceof ErasureCodingConfigError) throw new EcRefusal(err.message);
    throw err;
  }
  // ECReplicationConfig.configFormat: no codec, the chunk size in whole KiB.
  const format = `EC/${config.data}-${config.parity}-${Math.floor(config.ecChunkSize / 1024)}k`;
  if (!allowedConfigs.test(format))
    throw new EcRefusal(`Invalid replication config for type EC and replication ${format}`);
  return config;
}

/** An EC request the OM refuses (answered INVALID_REQUEST). */
export class EcRefusal extends Error {}

/** The wire form of a config (`hadoop.hdds.ECReplicationConfig`; the codec lower case, as toProto writes it). */
export function ecConfigProto(config: EcReplicationConfig): hadoop.hdds.IECReplicationConfig {
  return {
    data: config.data,
    parity: config.parity,
    codec: config.codec,
    ecChunkSize: config.ecChunkSize,
  };
}

/** The fields of an EC block group's pipeline: type EC, its config, replica index i + 1 for member i. */
export function ecPipelineFields(
  config: EcReplicationConfig,
  members: number,
): Pick<
  hadoop.hdds.IPipeline,
  'type' | 'factor' | 'ecReplicationConfig' | 'memberReplicaIndexes' | 'leaderID'
> {
  return {
    type: hdds.ReplicationType.EC,
    // An EC pipeline states its config instead of a factor (Pipeline.getProtobufMessage).
    factor: null,
    ecReplicationConfig: ecConfigProto(config),
    memberReplicaIndexes: Array.from({ length: members }, (_, i) => i + 1),
    // EC pipelines have no leader: nothing goes through Ratis.
    leaderID: '',
  };
}
