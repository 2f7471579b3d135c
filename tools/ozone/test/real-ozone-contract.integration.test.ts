// fastpath's Ozone client contract suite against a real Apache Ozone MiniOzoneCluster: keys are
// written by Ozone's own Java client (through the launcher) and read by fastpath over the real
// datanodes' gRPC service; volumes, buckets, lookups, listings, renames and deletes are fastpath's
// own calls to the real OM. Writing data from fastpath needs a Ratis client, so the suite's
// fastpath-write parts stay off here.
import { afterAll, beforeAll, describe } from '@jest/globals';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { describeOzoneContract, type OzoneClusterAdapter } from '@fastpath/ozone-fs-client/testing/contract';
import { startRealOzoneCluster, type RealOzoneCluster } from '@fastpath/ozone-fixture';

// One MiniOzoneCluster for the whole suite; its 64 MiB RATIS/THREE writes take a while on 2 cores.
jest.setTimeout(600_000);

describe('Ozone client contract: real MiniOzoneCluster (Apache Ozone 2.2.0)', () => {
  let cluster: RealOzoneCluster;
  let inspector: OzoneClient;
  let adapter: OzoneClusterAdapter;

  beforeAll(async () => {
    cluster = await startRealOzoneCluster({ datanodes: 3 });
    // Finds which datanode fastpath tries first for a block (the pipeline's order, as the OM
    // returns it), so the fault hooks hit the replica the suite means.
    inspector = createOzoneClient({ omAddress: cluster.omGrpcAddress, userName: 'fixture' });
    const blockAt = async (volume: string, bucket: string, key: string, offsetInKey: number) => {
      const details = await inspector.getKeyInfo(volume, bucket, key);
      const block = details.blocks.find(
        (b) => offsetInKey >= b.offsetInKey && offsetInKey < b.offsetInKey + b.lengthBytes,
      );
      if (block === undefined) throw new Error(`${volume}/${bucket}/${key} has no byte ${offsetInKey}`);
      return block;
    };
    adapter = {
      omAddress: cluster.omGrpcAddress,
      async writeKey(spec) {
        await cluster.writeKeys([
          {
            volume: spec.volume,
            bucket: spec.bucket,
            key: spec.key,
            size: spec.sizeBytes,
            seed: spec.seed,
            checksumType: spec.checksumType,
            bytesPerChecksum: spec.bytesPerChecksum,
            chunkSizeBytes: spec.chunkSizeBytes,
            blockSizeBytes: spec.blockSizeBytes,
          },
        ]);
      },
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
        await cluster.stopDatanode(datanode.uuid);
        return () => cluster.restartDatanode(datanode.uuid);
      },
    };
  });

  afterAll(async () => {
    inspector?.close();
    await cluster?.stop();
  });

  describeOzoneContract(() => adapter, { corruptReplica: true, stopDatanode: true, fastpathWrites: false });
});
