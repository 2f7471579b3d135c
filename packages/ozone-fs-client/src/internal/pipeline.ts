import { OzoneProtocolError } from '../ozone-errors.js';
import { has, hdds, type hadoop } from './proto/wire.js';
import { memberUuid } from './ratis/pipeline-raft-group.js';

/** A datanode as the client addresses it: its UUID string and the host:port of its standalone gRPC port. */
export interface DatanodeAddress {
  uuid: string;
  address: string;
  /** The IP address the OM lists (whether it is this host decides short-circuit reads). */
  ipAddress?: string;
  /** `DatanodeDetailsProto.currentVersion` (DatanodeVersion; 4 and later serve short-circuit reads). */
  currentVersion?: number;
}

/** The members of a pipeline with their STANDALONE ports, in the pipeline's order. */
export function pipelineDatanodes(
  pipeline: hadoop.hdds.IPipeline | null | undefined,
  from: string,
): DatanodeAddress[] {
  if (!pipeline) throw new OzoneProtocolError(from, 'a key location without a pipeline');
  return (pipeline.members ?? []).map((m) => {
    const port = (m.ports ?? []).find((p) => p.name === 'STANDALONE');
    if (!port) throw new OzoneProtocolError(from, `datanode ${m.hostName} has no STANDALONE port`);
    const uuid = memberUuid(m);
    if (!uuid) throw new OzoneProtocolError(from, `datanode ${m.hostName} has no UUID`);
    const host = m.ipAddress.includes(':') ? `[${m.ipAddress}]` : m.ipAddress;
    return {
      uuid,
      address: `${host}:${port.value}`,
      ipAddress: m.ipAddress,
      ...(m.currentVersion != null && has(m, 'currentVersion') ? { currentVersion: m.currentVersion } : {}),
    };
  });
}

/**
 * Whether a pipeline's writes go through its Raft group: a RATIS pipeline whose members serve
 * Ratis on a port of their own (every real datanode's `RATIS` port is its own server). The
 * embedded mini cluster's datanodes serve no Raft group: they advertise their standalone gRPC
 * port under both names, and their blocks are written over it. Other pipeline types
 * (STAND_ALONE) carry no Raft group.
 */
export function servesRatis(pipeline: hadoop.hdds.IPipeline | null | undefined): boolean {
  // `type` defaults to STAND_ALONE in the .proto; every pipeline an OM hands out for a
  // replicated key says RATIS.
  if (!pipeline || (pipeline.type ?? hdds.ReplicationType.STAND_ALONE) !== hdds.ReplicationType.RATIS)
    return false;
  return (pipeline.members ?? []).some((m) => {
    const standalone = (m.ports ?? []).find((p) => p.name === 'STANDALONE');
    const ratis = (m.ports ?? []).find((p) => p.name === 'RATIS');
    return ratis === undefined || standalone === undefined || ratis.value !== standalone.value;
  });
}
