import type { MiniOzoneCluster } from '../mini-ozone-cluster.js';
import { OM_TRANSPORT_CLASSES, type OmTransportName } from '../../ozone-client-config.js';
import type { OzoneClusterAdapter, OzoneContractCapabilities } from './ozone-cluster-adapter.js';
import { parseEcReplicationConfig } from '../../internal/ec/ec-stripe-layout.js';
import { writeEcKey } from '../mini-ec-striper.js';
import { contractKeyBytes } from './contract-key-bytes.js';

/** `ozone.om.transport.class` naming each OM transport. */
export function omTransportClass(transport: OmTransportName): string {
  return Object.keys(OM_TRANSPORT_CLASSES).find((k) => OM_TRANSPORT_CLASSES[k] === transport) as string;
}

/**
 * The suites' adapter for the embedded mini cluster: fastpath writes, every fault hook, its
 * datanodes' counters. `omTransport` picks how the suites' clients reach the OM: unset, as a
 * client without `ozone.om.transport.class` does (gRPC to a single OM's `host:port`, Hadoop RPC to
 * an HA service id); set, that transport, named in the clients' properties.
 */
export function miniClusterAdapter(
  cluster: MiniOzoneCluster,
  omTransport?: OmTransportName,
): OzoneClusterAdapter {
  const stopDatanode = async (uuid: string): Promise<() => Promise<void>> => {
    await cluster.stopDatanode(uuid);
    return () => cluster.restartDatanode(uuid);
  };
  // In OM HA mode the suites reach the OMs as ofs://<serviceId>/ does, failing over between them.
  const serviceId = cluster.omServiceId;
  const properties: Record<string, string> = {
    ...cluster.omClientProperties,
    ...(omTransport ? { 'ozone.om.transport.class': omTransportClass(omTransport) } : {}),
  };
  return {
    omAddress: serviceId ?? (omTransport === 'hadoop-rpc' ? cluster.omRpcAddress : cluster.omAddress),
    ...(Object.keys(properties).length > 0 ? { clientOptions: { properties } } : {}),
    ...(cluster.caFile ? { tls: { caFile: cluster.caFile } } : {}),
    async corruptReplica(ref) {
      await cluster.corruptKeyReplica(ref.volume, ref.bucket, ref.key, ref.offsetInKey, {
        replica: ref.replica,
      });
    },
    stopReplica(ref) {
      const uuid = cluster.om.blockAt(ref.volume, ref.bucket, ref.key, 0).datanodes[ref.replica] as string;
      return stopDatanode(uuid);
    },
    stopDatanode,
    async writeEcKey(spec) {
      await writeEcKey(cluster, {
        volume: spec.volume,
        bucket: spec.bucket,
        key: spec.key,
        data: contractKeyBytes(spec.sizeBytes, spec.seed),
        config: parseEcReplicationConfig(spec.replication),
        blockGroupBytes: spec.blockGroupBytes,
      });
    },
    corruptBlockReplica(ref) {
      return cluster.datanode(ref.datanodeUuid).corruptBlock(ref.containerId, ref.localId, ref.offsetInBlock);
    },
    readChunkCounters() {
      const all = cluster.counters();
      return Promise.resolve({
        calls: all.reduce((n, c) => n + (c.byCommand['ReadChunk'] ?? 0), 0),
        bytes: all.reduce((n, c) => n + c.bytesRead, 0),
      });
    },
  };
}

/** Everything the embedded cluster can do. */
export const MINI_CLUSTER_CAPABILITIES: Readonly<OzoneContractCapabilities> = Object.freeze({
  corruptReplica: true,
  stopDatanode: true,
  fastpathWrites: true,
  datanodeCounters: true,
  // fastpath writes every key there, and the write suite already writes and reads a 256 MiB key
  // on this cluster: the contract's large key (one per checksum type) need not be 64 MiB too.
  largeKeyBytes: 16 * 1024 * 1024,
});
