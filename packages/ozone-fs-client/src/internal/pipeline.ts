import { OzoneProtocolError } from '../ozone-errors.js';
import { has, toBigInt, type hadoop } from './proto/wire.js';

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
