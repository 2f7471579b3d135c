package fastpath.ozonefixture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.hdds.client.DefaultReplicationConfig;
import org.apache.hadoop.hdds.client.ECReplicationConfig;
import org.apache.hadoop.hdds.client.ReplicationConfig;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.hdds.scm.OzoneClientConfig;
import org.apache.hadoop.ozone.client.BucketArgs;
import org.apache.hadoop.ozone.client.ObjectStore;
import org.apache.hadoop.ozone.client.OzoneBucket;
import org.apache.hadoop.ozone.client.OzoneClient;
import org.apache.hadoop.ozone.client.OzoneClientFactory;
import org.apache.hadoop.ozone.client.OzoneKeyDetails;
import org.apache.hadoop.ozone.client.OzoneKeyLocation;
import org.apache.hadoop.ozone.client.OzoneVolume;
import org.apache.hadoop.ozone.client.io.OzoneDataStreamOutput;
import org.apache.hadoop.ozone.client.io.OzoneOutputStream;
import org.apache.hadoop.ozone.om.OzoneManager;
import org.apache.hadoop.ozone.om.exceptions.OMException;
import org.apache.hadoop.ozone.om.helpers.BucketLayout;

/**
 * Writes keys with Ozone's own Java client (Hadoop RPC to the OM; Ratis to the datanodes, or for
 * an erasure-coded key its ECKeyOutputStream, which writes each cell to its datanode's standalone
 * port), one client per checksum setting because OzoneClientConfig is read once per client.
 */
final class KeyWriter {
  private static final int BUFFER_BYTES = 1 << 20;
  private final OzoneConfiguration clusterConf;
  /** Every OM: with OM HA any of them may lead when a key is created. */
  private final List<OzoneManager> oms;
  private final Field omBlockSize;
  private final long clusterBlockSize;

  KeyWriter(OzoneConfiguration clusterConf, List<OzoneManager> oms)
      throws ReflectiveOperationException {
    this.clusterConf = clusterConf;
    this.oms = List.copyOf(oms);
    // The OM, not the client, decides a key's block size (OMKeyCreateRequest allocates blocks of
    // OzoneManager#getScmBlockSize, read once from ozone.scm.block.size). A key asking for its own
    // block size sets that field for its write, as an OM started with that setting would have it.
    this.omBlockSize = OzoneManager.class.getDeclaredField("scmBlockSize");
    this.omBlockSize.setAccessible(true);
    this.clusterBlockSize = this.oms.get(0).getScmBlockSize();
  }

  /** Writes every key of {@code specs} in order; the answer lists what each became. */
  ArrayNode write(JsonNode specs) throws IOException, IllegalAccessException {
    ArrayNode written = JsonNodeFactory.instance.arrayNode();
    Map<String, OzoneClient> clients = new LinkedHashMap<>();
    try {
      for (JsonNode spec : specs) {
        String checksumType = spec.path("checksumType").asText("CRC32");
        int bytesPerChecksum = spec.path("bytesPerChecksum").asInt(16 * 1024);
        long chunkSize = spec.path("chunkSizeBytes").asLong(0);
        String clientKey = checksumType + "/" + bytesPerChecksum + "/" + chunkSize;
        OzoneClient client = clients.get(clientKey);
        if (client == null) {
          OzoneConfiguration conf = new OzoneConfiguration(clusterConf);
          conf.set("ozone.client.checksum.type", checksumType);
          conf.set("ozone.client.bytes.per.checksum", Integer.toString(bytesPerChecksum));
          // Ozone 2.2.0's client writes a chunk each time its stream buffer fills
          // (BlockOutputStream, OzoneClientConfig#getStreamBufferSize); ozone.scm.chunk.size is
          // not read on the write path. The flush and max sizes must be multiples of the buffer
          // size (OzoneClientConfig#validate): the defaults' ratios, 4x and 8x. A storage size
          // needs its unit.
          if (chunkSize > 0) {
            conf.set("ozone.client.stream.buffer.size", chunkSize + "B");
            conf.set("ozone.client.stream.buffer.flush.size", 4 * chunkSize + "B");
            conf.set("ozone.client.stream.buffer.max.size", 8 * chunkSize + "B");
          }
          client = OzoneClientFactory.getRpcClient(conf);
          clients.put(clientKey, client);
        }
        long blockSize = spec.path("blockSizeBytes").asLong(0);
        for (OzoneManager om : oms) omBlockSize.setLong(om, blockSize > 0 ? blockSize : clusterBlockSize);
        try {
          written.add(writeOne(client, spec));
        } finally {
          for (OzoneManager om : oms) omBlockSize.setLong(om, clusterBlockSize);
        }
      }
    } finally {
      for (OzoneClient client : clients.values()) client.close();
    }
    return written;
  }

  private ObjectNode writeOne(OzoneClient client, JsonNode spec) throws IOException {
    String volumeName = required(spec, "volume");
    String bucketName = required(spec, "bucket");
    String keyName = required(spec, "key");
    long size = spec.path("size").asLong(-1);
    if (size < 0) throw new IllegalArgumentException("key " + keyName + ": size must be >= 0");
    int seed = spec.path("seed").asInt(0);
    // No replication of its own (a bucket default was given): the key goes with none, and the OM
    // gives it the bucket's default (OzoneConfigUtil#resolveReplicationConfigPreference).
    ReplicationConfig replication = Replications.parse(spec.path("replication").asText(""));

    ObjectStore store = client.getObjectStore();
    OzoneVolume volume = ensureVolume(store, volumeName);
    OzoneBucket bucket =
        ensureBucket(
            volume,
            bucketName,
            spec.path("bucketLayout").asText(""),
            Replications.parse(spec.path("bucketReplication").asText("")));

    MessageDigest sha256 = sha256();
    byte[] buffer = new byte[(int) Math.min(BUFFER_BYTES, Math.max(size, 1))];
    boolean dataStream = spec.path("dataStream").asBoolean(false);
    if (dataStream) {
      // Ratis DataStream (BlockDataStreamOutput): the pipeline's datanodes must advertise a
      // RATIS_DATASTREAM port, or the first block's setup fails.
      try (OzoneDataStreamOutput out =
          bucket.createStreamKey(keyName, size, replication, new HashMap<>())) {
        for (long offset = 0; offset < size; ) {
          int length = (int) Math.min(buffer.length, size - offset);
          KeyPattern.fill(seed, offset, buffer, length);
          // Copied into the stream's own packet buffer (StreamBuffer#put) before write returns.
          out.write(ByteBuffer.wrap(buffer, 0, length));
          sha256.update(buffer, 0, length);
          offset += length;
        }
      }
    } else {
      try (OzoneOutputStream out = bucket.createKey(keyName, size, replication, new HashMap<>())) {
        for (long offset = 0; offset < size; ) {
          int length = (int) Math.min(buffer.length, size - offset);
          KeyPattern.fill(seed, offset, buffer, length);
          out.write(buffer, 0, length);
          sha256.update(buffer, 0, length);
          offset += length;
        }
      }
    }

    OzoneKeyDetails details = bucket.getKey(keyName);
    OzoneClientConfig effective = client.getConfiguration().getObject(OzoneClientConfig.class);
    ReplicationConfig recorded = details.getReplicationConfig();
    ObjectNode result = JsonNodeFactory.instance.objectNode();
    result.put("volume", volumeName);
    result.put("bucket", bucketName);
    result.put("key", keyName);
    result.put("size", details.getDataSize());
    result.put("seed", seed);
    result.put("replication", Replications.text(recorded));
    result.put("bucketLayout", bucket.getBucketLayout().name());
    // What the client really used: OzoneClientConfig raises a too-small bytes-per-checksum.
    result.put("checksumType", effective.getChecksumType().name());
    result.put("bytesPerChecksum", effective.getBytesPerChecksum());
    // An EC key's stream buffer is its cell (StreamBufferArgs#getDefaultStreamBufferArgs).
    result.put(
        "chunkSizeBytes",
        recorded instanceof ECReplicationConfig ec
            ? ec.getEcChunkSize()
            : dataStream ? effective.getDataStreamMinPacketSize() : effective.getStreamBufferSize());
    result.put("sha256", hex(sha256.digest()));
    ArrayNode blocks = result.putArray("blocks");
    for (OzoneKeyLocation location : details.getOzoneKeyLocations()) {
      ObjectNode block = blocks.addObject();
      // Decimal strings: local ids are Java longs far above 2^53, which JSON numbers lose.
      block.put("containerId", Long.toString(location.getContainerID()));
      block.put("localId", Long.toString(location.getLocalID()));
      block.put("offset", location.getOffset());
      block.put("offsetInKey", location.getKeyOffset());
      block.put("length", location.getLength());
    }
    return result;
  }

  private static OzoneVolume ensureVolume(ObjectStore store, String name) throws IOException {
    try {
      store.createVolume(name);
    } catch (OMException e) {
      if (e.getResult() != OMException.ResultCodes.VOLUME_ALREADY_EXISTS) throw e;
    }
    return store.getVolume(name);
  }

  private static OzoneBucket ensureBucket(
      OzoneVolume volume, String name, String layout, ReplicationConfig defaultReplication)
      throws IOException {
    try {
      if (layout.isEmpty() && defaultReplication == null) {
        volume.createBucket(name);
      } else {
        BucketArgs.Builder args = BucketArgs.newBuilder();
        if (!layout.isEmpty()) args.setBucketLayout(BucketLayout.valueOf(layout));
        if (defaultReplication != null) {
          args.setDefaultReplicationConfig(new DefaultReplicationConfig(defaultReplication));
        }
        volume.createBucket(name, args.build());
      }
    } catch (OMException e) {
      if (e.getResult() != OMException.ResultCodes.BUCKET_ALREADY_EXISTS) throw e;
    }
    OzoneBucket bucket = volume.getBucket(name);
    if (defaultReplication != null
        && !Objects.equals(bucket.getReplicationConfig(), defaultReplication)) {
      throw new IllegalArgumentException(
          "bucket "
              + volume.getName()
              + "/"
              + name
              + " exists with the default replication "
              + (bucket.getReplicationConfig() == null
                  ? "none"
                  : Replications.text(bucket.getReplicationConfig()))
              + ", not "
              + Replications.text(defaultReplication));
    }
    return bucket;
  }

  private static String required(JsonNode spec, String field) {
    String value = spec.path(field).asText("");
    if (value.isEmpty()) throw new IllegalArgumentException("key spec lacks \"" + field + "\"");
    return value;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String hex(byte[] bytes) {
    StringBuilder sb = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) sb.append(String.format("%02x", b));
    return sb.toString();
  }
}
