package fastpath.ozonefixture;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Field;
import java.util.Map;
import org.apache.hadoop.hdds.protocol.datanode.proto.ContainerProtos;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.ozone.HddsDatanodeService;
import org.apache.hadoop.ozone.MiniOzoneCluster;
import org.apache.hadoop.ozone.container.common.helpers.ContainerMetrics;

/**
 * Each datanode's own container-command counters (Ozone's ContainerMetrics, the source behind the
 * datanode's "StorageContainerMetrics" JMX bean): operations and bytes per command type. For
 * ReadChunk the bytes are the length of the ChunkInfo the client asked for
 * (KeyValueHandler#handleReadChunk), so a client's checksum-window widening shows here as the
 * datanode saw it. ContainerMetrics has no getter for these arrays, hence the reflection; the
 * counters restart from 0 when a datanode restarts.
 */
final class ContainerCounters {
  private static final Field OPS = field("numOpsArray");
  private static final Field BYTES = field("opsBytesArray");

  private ContainerCounters() {}

  /** One entry per datanode: uuid, and per command type with any activity its ops and bytes. */
  static ArrayNode read(MiniOzoneCluster cluster) throws IllegalAccessException {
    ArrayNode nodes = JsonNodeFactory.instance.arrayNode();
    for (HddsDatanodeService datanode : cluster.getHddsDatanodes()) {
      ObjectNode node = nodes.addObject();
      node.put("uuid", datanode.getDatanodeDetails().getUuidString());
      ContainerMetrics metrics = datanode.getDatanodeStateMachine().getContainer().getMetrics();
      Map<?, ?> ops = (Map<?, ?>) OPS.get(metrics);
      Map<?, ?> bytes = (Map<?, ?>) BYTES.get(metrics);
      ObjectNode commands = node.putObject("commands");
      for (ContainerProtos.Type type : ContainerProtos.Type.values()) {
        long opCount = value(ops.get(type));
        long byteCount = value(bytes.get(type));
        if (opCount == 0 && byteCount == 0) continue;
        commands.putObject(type.name()).put("ops", opCount).put("bytes", byteCount);
      }
    }
    return nodes;
  }

  private static long value(Object counter) {
    return counter instanceof MutableCounterLong c ? c.value() : 0;
  }

  private static Field field(String name) {
    try {
      Field f = ContainerMetrics.class.getDeclaredField(name);
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("ContainerMetrics has no field " + name + " in this Ozone", e);
    }
  }
}
