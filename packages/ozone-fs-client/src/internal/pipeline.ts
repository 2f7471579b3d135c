import { OzoneProtocolError } from '../ozone-errors.js';
import { has, type hadoop } from './proto/wire.js';
import { memberUuid } from './ratis/pipeline-raft-group.js';

/** A datanode as the client addresses it: its UUID string and the host:port of its standalone gRPC port. */
export interface DatanodeAddress {
  /** The datanode's UUID (`DatanodeDetailsProto.uuid`), the id SCM and the OM know it by. */
  uuid: string;
  /** `ip:port` of the datanode's STANDALONE (gRPC `XceiverClientProtocolService`) port, an IPv6 address in brackets. */
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
