package fastpath.ozonewrite;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hdds.client.ECReplicationConfig;
import org.apache.hadoop.hdds.client.RatisReplicationConfig;
import org.apache.hadoop.hdds.client.ReplicationConfig;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.hdds.protocol.proto.HddsProtos;
import org.apache.hadoop.ozone.client.OzoneBucket;
import org.apache.hadoop.ozone.client.OzoneClient;
import org.apache.hadoop.ozone.client.OzoneClientFactory;
import org.apache.hadoop.ozone.client.io.OzoneDataStreamOutput;
import org.apache.hadoop.ozone.client.io.OzoneOutputStream;

/**
 * The Java side of the ozone-write benchmark: Ozone's own client (OzoneClientFactory's RpcClient,
 * Hadoop RPC to the OM, Ratis to the datanodes) writing the benchmark's keys with N threads
 * sharing one client, each thread writing its keys in turn, timed per key, with the JVM's process
 * CPU over the pass; and reading keys back whole with checksums verified, compared with the bytes
 * written. One JSON request per stdin line, one JSON answer per stdout line; Ozone's logging goes
 * to stderr.
 */
public final class OzoneWriteBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int READ_BUFFER_BYTES = 1 << 20;

  private OzoneClient client;
  private OzoneBucket bucket;
  private final Map<String, byte[]> contents = new ConcurrentHashMap<>();

  public static void main(String[] args) throws Exception {
    PrintStream out =
        new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
    // Everything else (Ozone's logging, stray prints) goes to stderr: stdout carries answers only.
    System.setOut(System.err);
    OzoneWriteBench bench = new OzoneWriteBench();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    out.println("{\"ready\":true}");
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isBlank()) continue;
      ObjectNode answer;
      try {
        answer = bench.handle(JSON.readTree(line));
        answer.put("ok", true);
      } catch (Throwable t) {
        answer = JSON.createObjectNode();
        answer.put("ok", false);
        answer.put("error", chain(t));
      }
      out.println(JSON.writeValueAsString(answer));
    }
    if (bench.client != null) bench.client.close();
  }

  private static String chain(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (b.length() > 0) b.append(" <- ");
      b.append(c.getClass().getName()).append(": ").append(c.getMessage());
    }
    return b.toString();
  }

  private ObjectNode handle(JsonNode req) throws Exception {
    String op = req.get("op").asText();
    ObjectNode answer = JSON.createObjectNode();
    switch (op) {
      case "init": {
        OzoneConfiguration conf = new OzoneConfiguration();
        conf.set("ozone.om.address", req.get("omRpcAddress").asText());
        // Ozone's defaults, named so that the run records what both clients used.
        conf.setBoolean("ozone.client.verify.checksum", true);
        client = OzoneClientFactory.getRpcClient(conf);
        bucket =
            client.getObjectStore().getVolume(req.get("volume").asText()).getBucket(req.get("bucket").asText());
        answer.put("version", org.apache.hadoop.ozone.util.OzoneVersionInfo.OZONE_VERSION_INFO.getVersion());
        answer.put("layout", bucket.getBucketLayout().name());
        return answer;
      }
      case "prepare": {
        long started = System.nanoTime();
        int size = req.get("sizeBytes").asInt();
        for (JsonNode seed : req.get("seeds"))
          contents.computeIfAbsent(seed.asInt() + "/" + size, k -> content(seed.asInt(), size));
        answer.put("ms", (System.nanoTime() - started) / 1e6);
        return answer;
      }
      case "write":
        return write(req);
      case "verify":
        return verify(req);
      default:
        throw new IllegalArgumentException("unknown op " + op);
    }
  }

  /** The known content: the contract suite's pattern (MurmurHash3's finaliser per 32-bit word). */
  static byte[] content(int seed, int size) {
    byte[] b = new byte[size];
    for (int w = 0; w * 4 < size; w++) {
      int h = w + seed * 0x9E3779B9;
      h ^= h >>> 16;
      h *= 0x85EBCA6B;
      h ^= h >>> 13;
      h *= 0xC2B2AE35;
      h ^= h >>> 16;
      for (int k = 0; k < 4 && w * 4 + k < size; k++) b[w * 4 + k] = (byte) (h >>> (8 * k));
    }
    return b;
  }

  private byte[] contentOf(JsonNode key, int size) {
    byte[] c = contents.get(key.get("seed").asInt() + "/" + size);
    if (c == null) throw new IllegalStateException("no content prepared for " + key.get("name").asText());
    return c;
  }

  /** RATIS ONE or THREE, else an EC config in Ozone's text form (rs-3-2-1024k): ECKeyOutputStream. */
  private static ReplicationConfig replication(String name) {
    switch (name) {
      case "ONE":
        return RatisReplicationConfig.getInstance(HddsProtos.ReplicationFactor.ONE);
      case "THREE":
        return RatisReplicationConfig.getInstance(HddsProtos.ReplicationFactor.THREE);
      default:
        return new ECReplicationConfig(name);
    }
  }

  private ObjectNode write(JsonNode req) throws Exception {
    final JsonNode keys = req.get("keys");
    final int writers = Math.min(req.get("writers").asInt(), keys.size());
    final int size = req.get("sizeBytes").asInt();
    final int writeBytes = req.get("writeBytes").asInt();
    final ReplicationConfig replication = replication(req.get("replication").asText());
    final boolean dataStream = req.path("dataStream").asBoolean(false);
    final byte[][] data = new byte[keys.size()][];
    for (int i = 0; i < keys.size(); i++) data[i] = contentOf(keys.get(i), size);
    final AtomicLong committed = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();
    final AtomicReference<String> firstError = new AtomicReference<>();
    final double[] latenciesUs = new double[keys.size()];
    final boolean[] ok = new boolean[keys.size()];
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    final long cpuBefore = os.getProcessCpuTime();
    final long started = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < writers; t++) {
      final int first = t;
      Thread th =
          new Thread(
              () -> {
                for (int i = first; i < keys.size(); i += writers) {
                  String name = keys.get(i).get("name").asText();
                  long began = System.nanoTime();
                  try {
                    if (dataStream) {
                      // Ratis streaming (BlockDataStreamOutput), as Ozone's file systems write
                      // with ozone.fs.datastream.enabled; the stream copies each write into its
                      // own packet buffer.
                      try (OzoneDataStreamOutput out =
                          bucket.createStreamKey(name, size, replication, new HashMap<>())) {
                        for (int o = 0; o < size; o += writeBytes)
                          out.write(ByteBuffer.wrap(data[i], o, Math.min(writeBytes, size - o)));
                      }
                    } else {
                      try (OzoneOutputStream out =
                          bucket.createKey(name, size, replication, new HashMap<>())) {
                        for (int o = 0; o < size; o += writeBytes)
                          out.write(data[i], o, Math.min(writeBytes, size - o));
                      }
                    }
                  } catch (Throwable e) {
                    errors.incrementAndGet();
                    firstError.compareAndSet(null, name + ": " + chain(e));
                    continue;
                  }
                  latenciesUs[i] = (System.nanoTime() - began) / 1e3;
                  ok[i] = true;
                  committed.incrementAndGet();
                  bytes.addAndGet(size);
                }
              },
              "writer-" + t);
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) th.join();
    long wallNs = System.nanoTime() - started;
    long cpuNs = os.getProcessCpuTime() - cpuBefore;
    ObjectNode a = JSON.createObjectNode();
    a.put("keys", committed.get());
    a.put("errors", errors.get());
    a.put("bytes", bytes.get());
    a.put("wallNs", wallNs);
    a.put("cpuNs", cpuNs);
    ArrayNode lat = a.putArray("latenciesUs");
    for (int i = 0; i < keys.size(); i++) if (ok[i]) lat.add(latenciesUs[i]);
    if (firstError.get() != null) a.put("firstError", firstError.get());
    return a;
  }

  private ObjectNode verify(JsonNode req) throws Exception {
    final JsonNode keys = req.get("keys");
    final int size = req.get("sizeBytes").asInt();
    final int threads = Math.max(1, Math.min(16, (256 << 20) / Math.max(1, size)));
    final AtomicInteger next = new AtomicInteger();
    final AtomicLong verified = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicReference<String> firstError = new AtomicReference<>();
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread th =
          new Thread(
              () -> {
                byte[] buffer = new byte[READ_BUFFER_BYTES];
                for (int i; (i = next.getAndIncrement()) < keys.size(); ) {
                  JsonNode key = keys.get(i);
                  String name = key.get("name").asText();
                  try (InputStream in = bucket.readKey(name)) {
                    byte[] want = contentOf(key, size);
                    long at = 0;
                    for (int n; (n = in.read(buffer)) > 0; ) {
                      if (at + n > size
                          || !Arrays.equals(buffer, 0, n, want, (int) at, (int) at + n))
                        throw new IllegalStateException("the bytes at " + at + " differ from those written");
                      at += n;
                    }
                    if (at != size)
                      throw new IllegalStateException(at + " bytes read, " + size + " written");
                    verified.incrementAndGet();
                  } catch (Throwable e) {
                    failed.incrementAndGet();
                    firstError.compareAndSet(null, name + ": " + chain(e));
                  }
                }
              },
              "reader-" + t);
      readers.add(th);
      th.start();
    }
    for (Thread th : readers) th.join();
    ObjectNode a = JSON.createObjectNode();
    a.put("verified", verified.get());
    a.put("failed", failed.get());
    if (firstError.get() != null) a.put("firstError", firstError.get());
    return a;
  }
}
