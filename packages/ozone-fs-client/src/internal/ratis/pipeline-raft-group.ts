// A RATIS pipeline as a Raft group: Ozone runs one Raft group per pipeline, whose id is the
// pipeline's UUID and whose peers are the member datanodes (peer id: the datanode's UUID string,
// client service on the port the datanode advertises as RATIS).
import { OzoneProtocolError } from '../../ozone-errors.js';
import { has, int64, toBigInt, type hadoop } from '../proto/wire.js';

/** The Raft group of one pipeline, as `@fastpath/ratis-client` addresses it. */
export interface PipelineRaftGroup {
  /** The pipeline's UUID (the group id). */
  groupId: string;
  /**
   * Each member: its datanode UUID (the Raft peer id), `host:port` of its RATIS port, and of its
   * RATIS_DATASTREAM port when it advertises one (a datanode with Ratis streaming on).
   */
  peers: Array<{ id: string; address: string; dataStreamAddress?: string }>;
  /** The member to send to first. */
  leaderId: string;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A UUID from its two 64-bit halves (hdds `UUID`), canonical lower-case. */
export function uuidFromBits(msb: bigint, lsb: bigint): string {
  const hex =
    BigInt.asUintN(64, msb).toString(16).padStart(16, '0') +
    BigInt.asUintN(64, lsb).toString(16).padStart(16, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A UUID as hdds `UUID` carries it: its two halves as signed 64-bit values. */
export function uuidBits(uuid: string): hadoop.hdds.IUUID {
  const hex = uuid.replaceAll('-', '');
  return {
    mostSigBits: int64(BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`))),
    leastSigBits: int64(BigInt.asIntN(64, BigInt(`0x${hex.slice(16)}`))),
  };
}

function uuidOf(u: hadoop.hdds.IUUID | null | undefined): string | undefined {
  return u ? uuidFromBits(toBigInt(u.mostSigBits), toBigInt(u.leastSigBits)) : undefined;
}

/** A member's UUID string: the deprecated string field when set, else its 128-bit forms. */
export function memberUuid(m: hadoop.hdds.IDatanodeDetailsProto): string | undefined {
  if (has(m, 'uuid') && m.uuid) return m.uuid.toLowerCase();
  return uuidOf(m.uuid128) ?? uuidOf(m.id?.uuid);
}

/** The pipeline's UUID: `uuid128` when present, else the older string `id`. */
export function pipelineUuid(pipeline: hadoop.hdds.IPipeline): string | undefined {
  const fromBits = uuidOf(pipeline.id?.uuid128);
  if (fromBits) return fromBits;
  const text = pipeline.id?.id?.toLowerCase();
  return text !== undefined && UUID_PATTERN.test(text) ? text : undefined;
}

/**
 * The Raft group of a RATIS pipeline. The leader is the one the pipeline names (field 101
 * `leaderDatanodeID`, else 100 `leaderID128`, else 6 `leaderID`), else the first of
 * `memberOrders`, else the first member; a leader that is not a member is ignored (the client
 * follows NotLeader redirects anyway).
 *
 * @param from the OM's address, for errors.
 * @throws OzoneProtocolError for a pipeline without a UUID, or a member without a UUID or RATIS port.
 */
export function pipelineRaftGroup(pipeline: hadoop.hdds.IPipeline, from: string): PipelineRaftGroup {
  const groupId = pipelineUuid(pipeline);
  if (groupId === undefined)
    throw new OzoneProtocolError(
      from,
      `a RATIS pipeline without a UUID (id ${JSON.stringify(pipeline.id?.id ?? null)})`,
    );
  const members = pipeline.members ?? [];
  if (members.length === 0) throw new OzoneProtocolError(from, `RATIS pipeline ${groupId} has no members`);
  const peers = members.map((m) => {
    const id = memberUuid(m);
    if (id === undefined) throw new OzoneProtocolError(from, `datanode ${m.hostName} has no UUID`);
    const port = (m.ports ?? []).find((p) => p.name === 'RATIS');
    if (!port)
      throw new OzoneProtocolError(
        from,
        `datanode ${m.hostName} of RATIS pipeline ${groupId} advertises no RATIS port`,
      );
    const host = m.ipAddress.includes(':') ? `[${m.ipAddress}]` : m.ipAddress;
    // Only an explicit entry counts: Java's getPort(RATIS_DATASTREAM) falls back to the RATIS port.
    const stream = (m.ports ?? []).find((p) => p.name === 'RATIS_DATASTREAM');
    return {
      id,
      address: `${host}:${port.value}`,
      ...(stream ? { dataStreamAddress: `${host}:${stream.value}` } : {}),
    };
  });
  const named =
    uuidOf(pipeline.leaderDatanodeID?.uuid) ??
    uuidOf(pipeline.leaderID128) ??
    (pipeline.leaderID ? pipeline.leaderID.toLowerCase() : undefined);
  const first = pipeline.memberOrders?.length ? peers[pipeline.memberOrders.indexOf(0)] : undefined;
  const leader = peers.find((p) => p.id === named) ?? first ?? peers[0];
  // peers is not empty (checked above).
  const leaderId = leader?.id ?? '';
  return { groupId, peers, leaderId };
}
