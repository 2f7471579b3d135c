// Which OM nodes a client talks to, resolved from Ozone's keys as Ozone's client resolves them
// (OmUtils, OMFailoverProxyProviderBase, GrpcOMFailoverProxyProvider): an address names one OM,
// a service id listed in `ozone.om.service.ids` names the nodes of `ozone.om.nodes.<sid>`, each at
// `ozone.om.address.<sid>.<nid>` (host[:Hadoop RPC port]) with its gRPC port from
// `ozone.om.grpc.port.<sid>.<nid>`, else `ozone.om.grpc.port`.
import { InvalidOptionError } from '@fastpath/core';

/** The default Hadoop RPC port of an OM (`OZONE_OM_PORT_DEFAULT`). */
export const OM_RPC_PORT_DEFAULT = 9862;
/** Ozone's node id of a single, non-HA OM (`OzoneConsts.OM_DEFAULT_NODE_ID`). */
export const OM_DEFAULT_NODE_ID = 'om1';

export interface OmNodeAddress {
  nodeId: string;
  host: string;
  /** Hadoop RPC port (`ozone.om.address…`). */
  rpcPort: number;
  /** gRPC port (`ozone.om.grpc.port…`). */
  grpcPort: number;
}

export interface OmTarget {
  /** The OM service id, undefined for a single OM given by address. */
  serviceId: string | undefined;
  nodes: OmNodeAddress[];
  /** Whether the OM was named by `host[:port]` (the client's `omAddress`, a URI's authority). */
  byAddress: boolean;
}

type Lookup = (key: string) => string | undefined;

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** `host[:port]` (IPv6 in brackets); the port is undefined when absent. */
export function splitHostPort(text: string): { host: string; port: number | undefined } | undefined {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(text) ?? /^([^:[\]]+)(?::(\d+))?$/.exec(text);
  if (!m) return undefined;
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { host: m[1] as string, port };
}

/** `ozone.om.service.ids`. */
export function omServiceIds(lookup: Lookup): string[] {
  return list(lookup('ozone.om.service.ids'));
}

/**
 * The OM nodes behind `authority` (the client's `omAddress`, or a file-system URI's OM part):
 * a service id listed in `ozone.om.service.ids` (no port allowed), else `host[:port]`, the port
 * that of `addressTransport` (gRPC: default `grpcPortDefault`; Hadoop RPC: default 9862).
 * Without an authority: the one service id configured, else `ozone.om.address`.
 */
export function resolveOmTarget(
  authority: string | undefined,
  lookup: Lookup,
  grpcPortDefault: number,
  addressTransport: 'grpc' | 'hadoop-rpc' = 'grpc',
): OmTarget {
  const serviceIds = omServiceIds(lookup);
  if (authority === undefined || authority === '') {
    if (serviceIds.length === 1) return serviceTarget(serviceIds[0] as string, lookup, grpcPortDefault);
    if (serviceIds.length > 1)
      throw new InvalidOptionError(
        'omAddress',
        `ozone.om.service.ids lists ${serviceIds.length} services (${serviceIds.join(', ')}): name one`,
      );
    const configured = lookup('ozone.om.address');
    if (configured === undefined || configured.trim() === '')
      throw new InvalidOptionError(
        'omAddress',
        'expected host:port of the OM gRPC service or an OM service id (or ozone.om.address / ozone.om.service.ids)',
      );
    const hp = splitHostPort(configured.trim());
    if (!hp)
      throw new InvalidOptionError(
        'ozone.om.address',
        `expected host[:port], got ${JSON.stringify(configured)}`,
      );
    // ozone.om.address carries the Hadoop RPC port; the gRPC port is ozone.om.grpc.port.
    return { ...single(hp.host, hp.port ?? OM_RPC_PORT_DEFAULT, grpcPortDefault), byAddress: false };
  }
  const hp = splitHostPort(authority);
  if (!hp)
    throw new InvalidOptionError(
      'omAddress',
      `expected host[:port] or an OM service id, got ${JSON.stringify(authority)}`,
    );
  if (serviceIds.includes(hp.host)) {
    if (hp.port !== undefined)
      throw new InvalidOptionError(
        'omAddress',
        `${hp.host} is a logical (HA) OzoneManager service and does not use port information`,
      );
    return serviceTarget(hp.host, lookup, grpcPortDefault);
  }
  // A single OM by address: the port is that of the transport it is read for.
  const target =
    addressTransport === 'hadoop-rpc'
      ? single(hp.host, hp.port ?? OM_RPC_PORT_DEFAULT, grpcPortDefault)
      : single(hp.host, OM_RPC_PORT_DEFAULT, hp.port ?? grpcPortDefault);
  return { ...target, byAddress: true };
}

function single(host: string, rpcPort: number, grpcPort: number): Omit<OmTarget, 'byAddress'> {
  return { serviceId: undefined, nodes: [{ nodeId: OM_DEFAULT_NODE_ID, host, rpcPort, grpcPort }] };
}

function serviceTarget(serviceId: string, lookup: Lookup, grpcPortDefault: number): OmTarget {
  const nodesKey = `ozone.om.nodes.${serviceId}`;
  // Listeners (non-voting) and decommissioned nodes never lead: Ozone's client leaves them out.
  const excluded = new Set([
    ...list(lookup(`ozone.om.listener.nodes.${serviceId}`)),
    ...list(lookup(`ozone.om.decommissioned.nodes.${serviceId}`)),
  ]);
  const nodeIds = list(lookup(nodesKey)).filter((n) => !excluded.has(n));
  if (nodeIds.length === 0)
    throw new InvalidOptionError(nodesKey, `names no OM node of service ${serviceId}`);
  if (new Set(nodeIds).size !== nodeIds.length) throw new InvalidOptionError(nodesKey, 'names a node twice');
  const nodes = nodeIds.map((nodeId): OmNodeAddress => {
    const addressKey = `ozone.om.address.${serviceId}.${nodeId}`;
    const text = lookup(addressKey)?.trim();
    if (!text) throw new InvalidOptionError(addressKey, `is not set (node ${nodeId} of ${nodesKey})`);
    const hp = splitHostPort(text);
    if (!hp) throw new InvalidOptionError(addressKey, `expected host[:port], got ${JSON.stringify(text)}`);
    const grpcKey = `ozone.om.grpc.port.${serviceId}.${nodeId}`;
    const grpcText = lookup(grpcKey);
    let grpcPort = grpcPortDefault;
    if (grpcText !== undefined) {
      grpcPort = Number(grpcText.trim());
      if (!Number.isInteger(grpcPort) || grpcPort < 1 || grpcPort > 65535)
        throw new InvalidOptionError(grpcKey, `expected a port, got ${JSON.stringify(grpcText)}`);
    }
    return { nodeId, host: hp.host, rpcPort: hp.port ?? OM_RPC_PORT_DEFAULT, grpcPort };
  });
  return { serviceId, nodes, byAddress: false };
}
