package fastpath.ozonefixture;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.util.Set;
import org.apache.hadoop.hdds.client.BlockID;
import org.apache.hadoop.hdds.protocol.DatanodeDetails;
import org.apache.hadoop.hdds.protocol.datanode.proto.ContainerProtos;
import org.apache.hadoop.hdds.scm.container.common.helpers.StorageContainerException;
import org.apache.hadoop.hdds.scm.pipeline.Pipeline;
import org.apache.hadoop.ozone.HddsDatanodeService;
import org.apache.hadoop.ozone.MiniOzoneCluster;
import org.apache.hadoop.ozone.container.common.impl.ContainerLayoutVersion;
import org.apache.hadoop.ozone.container.common.interfaces.Container;
import org.apache.hadoop.ozone.container.keyvalue.KeyValueContainerData;
import org.apache.hadoop.ozone.container.keyvalue.KeyValueHandler;
import org.apache.hadoop.ozone.container.ozoneimpl.OzoneContainer;
import org.apache.hadoop.ozone.om.OzoneManager;
import org.apache.hadoop.ozone.om.exceptions.OMException;
import org.apache.hadoop.ozone.om.helpers.OmKeyArgs;
import org.apache.hadoop.ozone.om.helpers.OmKeyInfo;
import org.apache.hadoop.ozone.om.helpers.OmKeyLocationInfo;
import org.apache.hadoop.ozone.om.helpers.OmKeyLocationInfoGroup;

/**
 * Looks a committed key up in the OM from the Java side, so that a test can check what a
 * non-Java client committed (or did not) without trusting that client's own reading: whether the
 * key exists, its length, replication and metadata, and each block with the BCSID the OM recorded
 * for it, the datanodes of its pipeline with their replica indexes (for an EC block group,
 * 1..d+p), and what every running datanode itself holds of it: the replica index of its container,
 * the block's committed length and its file on disk.
 */
final class KeyLookup {
  private KeyLookup() {}

  static void lookup(
      OzoneManager om,
      MiniOzoneCluster cluster,
      Set<String> stoppedDatanodes,
      String volume,
      String bucket,
      String key,
      ObjectNode answer)
      throws IOException {
    OmKeyArgs args =
        new OmKeyArgs.Builder()
            .setVolumeName(volume)
            .setBucketName(bucket)
            .setKeyName(key)
            .build();
    OmKeyInfo info;
    try {
      // The OM refreshes each block's pipeline from SCM: for an open container the pipeline it
      // was written through, for a closed one the replicas SCM knows (createPipelineForRead).
      info = om.lookupKey(args);
    } catch (OMException e) {
      if (e.getResult() == OMException.ResultCodes.KEY_NOT_FOUND
          || e.getResult() == OMException.ResultCodes.FILE_NOT_FOUND) {
        answer.put("found", false);
        return;
      }
      throw e;
    }
    answer.put("found", true);
    answer.put("dataSize", info.getDataSize());
    answer.put("replication", Replications.text(info.getReplicationConfig()));
    // The key's metadata, e.g. hsyncClientId while an hsync'ed key is still open.
    ObjectNode metadata = answer.putObject("metadata");
    info.getMetadata().forEach(metadata::put);
    ArrayNode blocks = answer.putArray("blocks");
    OmKeyLocationInfoGroup latest = info.getLatestVersionLocations();
    if (latest == null) return;
    for (OmKeyLocationInfo block : latest.getLocationList()) {
      ObjectNode b = blocks.addObject();
      // As strings: container and local IDs use the whole Java long range.
      b.put("containerId", Long.toString(block.getContainerID()));
      b.put("localId", Long.toString(block.getLocalID()));
      b.put("blockCommitSequenceId", Long.toString(block.getBlockCommitSequenceId()));
      b.put("length", block.getLength());
      ArrayNode replicas = b.putArray("replicas");
      Pipeline pipeline = block.getPipeline();
      if (pipeline != null) {
        for (DatanodeDetails node : pipeline.getNodes()) {
          replicas
              .addObject()
              .put("datanodeUuid", node.getUuidString())
              .put("replicaIndex", pipeline.getReplicaIndex(node));
        }
      }
      ArrayNode stored = b.putArray("stored");
      for (HddsDatanodeService datanode : cluster.getHddsDatanodes()) {
        String uuid = datanode.getDatanodeDetails().getUuidString();
        if (stoppedDatanodes.contains(uuid)) continue;
        storedReplica(datanode, block.getContainerID(), block.getLocalID(), stored);
      }
    }
  }

  /** What one datanode holds of a block, from its own container set and block store. */
  private static void storedReplica(
      HddsDatanodeService datanode, long containerId, long localId, ArrayNode stored)
      throws IOException {
    OzoneContainer containers = datanode.getDatanodeStateMachine().getContainer();
    Container<?> container = containers.getContainerSet().getContainer(containerId);
    if (container == null) return;
    BlockID blockId = new BlockID(containerId, localId);
    long length;
    try {
      KeyValueHandler handler =
          (KeyValueHandler)
              containers
                  .getDispatcher()
                  .getHandler(ContainerProtos.ContainerType.KeyValueContainer);
      length = handler.getBlockManager().getCommittedBlockLength(container, blockId);
    } catch (StorageContainerException e) {
      if (e.getResult() == ContainerProtos.Result.NO_SUCH_BLOCK) return;
      throw e;
    }
    ObjectNode replica = stored.addObject();
    replica.put("datanodeUuid", datanode.getDatanodeDetails().getUuidString());
    replica.put("replicaIndex", container.getContainerData().getReplicaIndex());
    replica.put("lengthBytes", length);
    // The file Ozone's FILE_PER_BLOCK layout keeps the block's chunks in; an internal block that
    // got only a PutBlock (no cell of the key reached it) has none.
    KeyValueContainerData data = (KeyValueContainerData) container.getContainerData();
    File file =
        data.getLayoutVersion() == ContainerLayoutVersion.FILE_PER_BLOCK
            ? ContainerLayoutVersion.FILE_PER_BLOCK.getChunkFile(
                new File(data.getChunksPath()), blockId, null)
            : null;
    if (file != null && file.isFile()) {
      replica.put("blockFile", file.getPath());
    } else {
      replica.putNull("blockFile");
    }
  }
}
