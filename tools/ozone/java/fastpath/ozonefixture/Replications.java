package fastpath.ozonefixture;

import org.apache.hadoop.hdds.client.ECReplicationConfig;
import org.apache.hadoop.hdds.client.RatisReplicationConfig;
import org.apache.hadoop.hdds.client.ReplicationConfig;
import org.apache.hadoop.hdds.protocol.proto.HddsProtos;

/**
 * The replication texts of the fixture's protocol: RATIS/ONE, RATIS/THREE, or Ozone's EC text form
 * (rs-3-2-1024k), parsed by Ozone's own ECReplicationConfig. The TypeScript side checks the text
 * first; what reaches this class is well formed.
 */
final class Replications {
  private Replications() {}

  /** The config for {@code text}; null for an empty text (the key takes its bucket's default). */
  static ReplicationConfig parse(String text) {
    switch (text) {
      case "":
        return null;
      case "RATIS/ONE":
        return RatisReplicationConfig.getInstance(HddsProtos.ReplicationFactor.ONE);
      case "RATIS/THREE":
        return RatisReplicationConfig.getInstance(HddsProtos.ReplicationFactor.THREE);
      default:
        return new ECReplicationConfig(text);
    }
  }

  /**
   * The text form of a config: RATIS/THREE, or for EC the codec, data, parity and the cell in k when
   * it is whole KiB, else in bytes (ECReplicationConfig#getReplication always writes KiB, rounded
   * down, which loses a cell such as 1000 bytes).
   */
  static String text(ReplicationConfig config) {
    if (config instanceof ECReplicationConfig ec) {
      int cell = ec.getEcChunkSize();
      return ec.getCodec() + "-" + ec.getData() + "-" + ec.getParity() + "-"
          + (cell % 1024 == 0 ? (cell / 1024) + "k" : Integer.toString(cell));
    }
    return config.getReplicationType().name() + "/" + config.getReplication();
  }
}
