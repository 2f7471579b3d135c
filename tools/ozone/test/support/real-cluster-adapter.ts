// The shared suites' adapter for a real MiniOzoneCluster: keys written, read and listed by Ozone's
// Java client and looked up in the OM from the Java side, corruption by overwriting bytes of a
// block file in a datanode's data directory, datanodes stopped and restarted by MiniOzoneCluster,
// and the datanodes' own ContainerMetrics counters.
import type { OzoneClient } from '@fastpath/ozone-fs-client';
import type {
  OzoneClusterAdapter,
  OzoneContractCapabilities,
} from '@fastpath/ozone-fs-client/testing/contract';
import { parseEcReplication, type OzoneKeyReplication, type RealOzoneCluster } from '@fastpath/ozone-fixture';

/** Where a suite's key goes and what its bytes are, as the Java writer takes them. */
function keyOf(spec: { volume: string; bucket: string; key: string; sizeBytes: number; seed: number }) {
  return { volume: spec.volume, bucket: spec.bucket, key: spec.key, size: spec.sizeBytes, seed: spec.seed };
}

/**
 * `inspector` looks blocks up in the OM: a replica index is the pipeline's order as the OM lists
 * it, which is the order fastpath tries them in.
 */
export function realClusterAdapter(cluster: RealOzoneCluster, inspector: OzoneClient): OzoneClusterAdapter {
  const blockAt = async (volume: string, bucket: string, key: string, offsetInKey: number) => {
    const details = await inspector.getKeyInfo(volume, bucket, key);
    const block = details.blocks.find(
      (b) => offsetInKey >= b.offsetInKey && offsetInKey < b.offsetInKey + b.lengthBytes,
    );
    if (block === undefined) throw new Error(`${volume}/${bucket}/${key} has no byte ${offsetInKey}`);
    return block;
  };
  const stopDatanode = async (uuid: string): Promise<() => Promise<void>> => {
    await cluster.stopDatanode(uuid);
    return () => cluster.restartDatanode(uuid);
  };
  return {
    // With OM HA the suites reach the OMs by service id, as ofs://<serviceId>/ does.
    omAddress: cluster.omServiceId ?? cluster.omGrpcAddress,
    ...(cluster.omServiceId !== undefined
      ? { clientOptions: { properties: { ...cluster.omClientProperties } } }
      : {}),
    async writeKey(spec) {
      const write = () =>
        cluster.writeKeys([
          {
            ...keyOf(spec),
            checksumType: spec.checksumType,
            bytesPerChecksum: spec.bytesPerChecksum,
            chunkSizeBytes: spec.chunkSizeBytes,
            blockSizeBytes: spec.blockSizeBytes,
            replication: spec.replication === 'ONE' ? 'RATIS/ONE' : 'RATIS/THREE',
          },
        ]);
      // A new cluster's Ratis pipeline may change leaders while it settles; on a loaded machine
      // Java's writer has been seen to spend its retries (each with its own backoff) on a leader
      // stepping down. The key was not committed, so it is written again, at most twice more.
      for (let attempt = 1; ; attempt++) {
        try {
          await write();
          return;
        } catch (err) {
          const leaderChange =
            err instanceof Error && /LeaderSteppingDownException|NotLeaderException/.test(err.message);
          if (!leaderChange || attempt >= 3) throw err;
        }
      }
    },
    async writeEcKey(spec) {
      // The OM sizes each internal block by the block size: a group holds data units × that.
      const ec = parseEcReplication(spec.replication);
      await cluster.writeKeys([
        {
          ...keyOf(spec),
          replication: spec.replication as OzoneKeyReplication,
          blockSizeBytes: spec.blockGroupBytes / ec.dataUnits,
        },
      ]);
    },
    corruptBlockReplica: (ref) =>
      cluster.corruptBlockReplica({
        datanodeUuid: ref.datanodeUuid,
        localId: ref.localId,
        offsetInBlock: ref.offsetInBlock,
      }),
    async corruptReplica(ref) {
      const block = await blockAt(ref.volume, ref.bucket, ref.key, ref.offsetInKey);
      const datanode = block.datanodes[ref.replica];
      if (datanode === undefined) throw new Error(`block ${block.localId} has no replica ${ref.replica}`);
      await cluster.corruptBlockReplica({
        datanodeUuid: datanode.uuid,
        localId: block.localId,
        offsetInBlock: ref.offsetInKey - block.offsetInKey,
      });
    },
    async stopReplica(ref) {
      const block = await blockAt(ref.volume, ref.bucket, ref.key, 0);
      const datanode = block.datanodes[ref.replica];
      if (datanode === undefined) throw new Error(`block ${block.localId} has no replica ${ref.replica}`);
      return stopDatanode(datanode.uuid);
    },
    stopDatanode,
    async lookupKey(volume, bucket, key) {
      const found = await cluster.lookupKey(volume, bucket, key);
      if (!found.found) return undefined;
      // The contract's record of a block; the lookup also says where each replica is.
      const blocks = found.blocks.map(({ containerId, localId, blockCommitSequenceId, lengthBytes }) => ({
        containerId,
        localId,
        blockCommitSequenceId,
        lengthBytes,
      }));
      return { dataSize: found.dataSize, blocks };
    },
    readKeyWithJava: (volume, bucket, key) => cluster.readKeyWithJava(volume, bucket, key),
    listKeysWithJava: (volume, bucket, prefix) => cluster.listKeysWithJava(volume, bucket, prefix),
    async readChunkCounters() {
      const all = await cluster.datanodeCounters();
      return {
        calls: all.reduce((n, d) => n + (d.commands['ReadChunk']?.ops ?? 0), 0),
        bytes: all.reduce((n, d) => n + (d.commands['ReadChunk']?.bytes ?? 0), 0),
      };
    },
  };
}

/** What the real cluster offers the suites: every fault hook and counter, fastpath's writes (through Ratis) and Ozone's Java client. */
export const REAL_CLUSTER_CAPABILITIES: Readonly<OzoneContractCapabilities> = Object.freeze({
  corruptReplica: true,
  stopDatanode: true,
  fastpathWrites: true,
  datanodeCounters: true,
  javaClient: true,
});
