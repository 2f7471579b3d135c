import { OzoneProtocolError } from '../ozone-errors.js';
import { has, hdds, toBigInt, type hadoop } from './proto/wire.js';

/** A datanode as the client addresses it: its UUID string and the host:port of its standalone gRPC port. */
export interface DatanodeAddress {
  uuid: string;
  address: string;
  /** The IP address the OM lists (whether it is this host decides short-circuit reads). */
  ipAddress?: string;
  /** `DatanodeDetailsProto.currentVersion` (DatanodeVersion; 4 and later serve short-circuit reads). */
  currentVersion?: number;
}

function uuidFromBits(msb: bigint, lsb: bigint): string {
  const hex =
    BigInt.asUintN(64, msb).toString(16).padStart(16, '0') +
    BigInt.asUintN(64, lsb).toString(16).padStart(16, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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
    let uuid = has(m, 'uuid') && m.uuid ? m.uuid : undefined;
    if (!uuid && m.uuid128)
      uuid = uuidFromBits(toBigInt(m.uuid128.mostSigBits), toBigInt(m.uuid128.leastSigBits));
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

/** Why a pipeline's blocks must not be written over the standalone port, as the OM describes it. */
export interface RatisBypass {
  /** `host:port` of the member's Ratis server (the port it advertises as `RATIS`), or `undefined` when it names none. */
  ratisAddress: string | undefined;
  /** The member's host name. */
  hostName: string;
}

/**
 * Whether WriteChunk/PutBlock over the members' standalone ports would bypass a Ratis server,
 * judged from what the pipeline itself says. A RATIS pipeline's writes must be agreed on by the
 * Raft group of its members: a real datanode advertises a `RATIS` port of its own (a separate
 * server), and a block written beside it is committed with BCSID 0 and no replication guarantee.
 * The embedded mini cluster's datanodes have no Ratis server: they advertise their standalone
 * gRPC port under both names, so writing there bypasses nothing. A member of a RATIS pipeline
 * that advertises no `RATIS` port at all is refused too (its Raft group is somewhere this client
 * cannot see). Other pipeline types (STAND_ALONE) carry no Raft group.
 *
 * @returns the first member whose Ratis server would be bypassed, or `undefined` when none would.
 */
export function ratisBypass(pipeline: hadoop.hdds.IPipeline | null | undefined): RatisBypass | undefined {
  // `type` defaults to STAND_ALONE in the .proto; every pipeline an OM hands out for a
  // replicated key says RATIS.
  if (!pipeline || (pipeline.type ?? hdds.ReplicationType.STAND_ALONE) !== hdds.ReplicationType.RATIS)
    return undefined;
  for (const m of pipeline.members ?? []) {
    const standalone = (m.ports ?? []).find((p) => p.name === 'STANDALONE');
    const ratis = (m.ports ?? []).find((p) => p.name === 'RATIS');
    if (ratis !== undefined && standalone !== undefined && ratis.value === standalone.value) continue;
    const host = m.ipAddress.includes(':') ? `[${m.ipAddress}]` : m.ipAddress;
    return { ratisAddress: ratis ? `${host}:${ratis.value}` : undefined, hostName: m.hostName };
  }
  return undefined;
}
