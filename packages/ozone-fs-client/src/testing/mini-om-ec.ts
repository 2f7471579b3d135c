// Erasure-coded keys in the mini OM: the replication config a key asks for, checked as Ozone's OM
// checks it (OzoneConfigUtil.resolveReplicationConfigPreference, ReplicationConfigValidator), and
// the pipeline fields of an EC block group (members numbered 1..d+p in list order, as SCM's
// ECPipelineProvider.create numbers them).
import { ErasureCodingConfigError } from '../ozone-errors.js';
import { checkEcReplicationConfig, type EcReplicationConfig } from '../internal/ec/ec-stripe-layout.js';
import type { ErasureCodecName } from '../internal/ec/raw-erasure-coder.js';
import { hdds, type hadoop } from '../internal/proto/wire.js';

/** `ozone.replication.allowed-configs` as Ozone 2.2.0 defaults it (OzoneConfigKeys). */
export const DEFAULT_REPLICATION_ALLOWED_CONFIGS =
  /^((STANDALONE|RATIS)\/(ONE|THREE))|(EC\/(3-2|6-3|10-4)-(512|1024|2048|4096)k)$/;

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
