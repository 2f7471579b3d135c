package fastpath.ozoneread;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.hdds.scm.XceiverClientManager;
import org.apache.hadoop.hdds.scm.XceiverClientMetrics;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The Java anchor of the ozone-read benchmark: Ozone's own ofs file system
 * (RootedOzoneFileSystem) reading the benchmark's files with the same offsets and sizes as
 * fastpath's reader, N threads sharing one FSDataInputStream per file, every read compared with
 * the file's known content. One JSON request per stdin line, one JSON answer per stdout line;
 * Ozone's logging goes to stderr.
 */
public final class OzoneReadBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final double TWO_POW_32 = 4294967296.0;

  /**
   * EC block groups the client read through its reconstructing reader: ECBlockInputStreamProxy
   * counts one each time it starts that reader (a data replica missing from the pipeline, or its
   * read failing). XceiverClientMetrics is one per JVM and has no getter for it, hence the
   * reflection; null when this Ozone has no such field (the count is then not reported).
   */
  private static final Field EC_RECONSTRUCTIONS = metricsField("ecReconstructionTotal");

  /** Seeds further apart than this many words get a buffer of their own (as file-content.ts). */
  private static final long MAX_SHARED_SPREAD_WORDS = 16L * 1024 * 1024;

  private final PrintStream out;
  /** The reconstruction count when the case's streams opened. */
  private long reconstructionsAtOpen;
  private String omRpcAddress;
  /** A secure cluster's security keys, under every case's own; null on an unsecured cluster. */
  private JsonNode securityProperties;
  /** The files' known content: file i is {@code content[i]} from {@code contentStart[i]}, fileSize bytes. */
  private byte[][] content = new byte[0][];
  private int[] contentStart = new int[0];
  private FileSystem fs;
  private FSDataInputStream[] streams = new FSDataInputStream[0];
  /** The case's files, in the order of the scenario's file set. */
  private Path[] paths = new Path[0];
  private long fileSize;

  private OzoneReadBench(PrintStream out) {
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
    // Everything else (Ozone's logging, stray prints) goes to stderr, so stdout carries answers only.
    System.setOut(System.err);
    OzoneReadBench bench = new OzoneReadBench(out);
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
    bench.closeStreams();
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
        omRpcAddress = req.get("omRpcAddress").asText();
        // On a secure cluster the reader logs in as the cluster's Kerberos user from its keytab,
        // with the cluster's security keys, before any file system is made.
        JsonNode login = req.get("login");
        if (login != null && !login.isNull()) {
          securityProperties = login.get("properties");
          OzoneConfiguration conf = new OzoneConfiguration();
          securityProperties.fields().forEachRemaining(e -> conf.set(e.getKey(), e.getValue().asText()));
          UserGroupInformation.setConfiguration(conf);
          UserGroupInformation.loginUserFromKeytab(login.get("principal").asText(), login.get("keytab").asText());
        }
        fileSize = req.get("fileSizeBytes").asLong();
        JsonNode seeds = req.get("seeds");
        long started = System.nanoTime();
        int[] seedValues = new int[seeds.size()];
        for (int i = 0; i < seedValues.length; i++) seedValues[i] = seeds.get(i).asInt();
        holdContent(seedValues, (int) fileSize);
        answer.put("ms", (System.nanoTime() - started) / 1e6);
        answer.put("version", org.apache.hadoop.ozone.util.OzoneVersionInfo.OZONE_VERSION_INFO.getVersion());
        return answer;
      }
      case "positions": {
        // The first draws of a seed, so the scenario can check both readers draw the same offsets.
        Positions p = new Positions(req.get("seed").asInt(), req.get("files").asInt(), req.get("fileSizeBytes").asLong(),
            req.get("readBytes").asInt(), req.get("aligned").asBoolean());
        var list = answer.putArray("positions");
        for (int i = 0; i < req.get("count").asInt(); i++) {
          p.next();
          list.addObject().put("file", p.file).put("offset", p.offset);
        }
        return answer;
      }
      case "open": {
        closeStreams();
        OzoneConfiguration conf = new OzoneConfiguration();
        if (securityProperties != null)
          securityProperties.fields().forEachRemaining(e -> conf.set(e.getKey(), e.getValue().asText()));
        conf.set("ozone.om.address", omRpcAddress);
        conf.set("fs.ofs.impl", "org.apache.hadoop.fs.ozone.RootedOzoneFileSystem");
        boolean verify = req.get("verify").asBoolean();
        String how = req.get("how").asText();
        if (!verify && how.equals("configuration")) conf.setBoolean("ozone.client.verify.checksum", false);
        // The case's own client settings (ozone.client.stream.readblock.enable for the ReadBlock rows).
        JsonNode properties = req.get("properties");
        if (properties != null)
          properties.fields().forEachRemaining(e -> conf.set(e.getKey(), e.getValue().asText()));
        fs = FileSystem.newInstance(new URI("ofs://" + omRpcAddress + "/"), conf);
        // Ozone 2.2.0's ofs does not override setVerifyChecksum: Hadoop's FileSystem ignores the
        // call, which is what HDDS-16783 is about. It is made anyway, as HBase makes it.
        if (how.equals("instance")) fs.setVerifyChecksum(verify);
        JsonNode paths = req.get("paths");
        this.paths = new Path[paths.size()];
        for (int i = 0; i < paths.size(); i++) this.paths[i] = new Path(paths.get(i).asText());
        // The sequential rows open a stream per file read instead of sharing one per file.
        JsonNode shared = req.get("shared");
        boolean share = shared == null || shared.asBoolean();
        streams = new FSDataInputStream[share ? paths.size() : 0];
        for (int i = 0; i < streams.length; i++) streams[i] = fs.open(this.paths[i]);
        reconstructionsAtOpen = reconstructions();
        answer.put("fileSystem", fs.getClass().getName());
        answer.put("stream", streams.length > 0 ? streams[0].getWrappedStream().getClass().getName() : "");
        return answer;
      }
      case "run":
        return run(req);
      case "close":
        closeStreams();
        return answer;
      default:
        throw new IllegalArgumentException("unknown op " + op);
    }
  }

  private static Field metricsField(String name) {
    try {
      Field f = XceiverClientMetrics.class.getDeclaredField(name);
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      return null;
    }
  }

  /** The JVM's EC reconstruction count, or -1 when it cannot be read. */
  private static long reconstructions() {
    if (EC_RECONSTRUCTIONS == null) return -1;
    try {
      return ((MutableCounterLong) EC_RECONSTRUCTIONS.get(XceiverClientManager.getXceiverClientMetrics())).value();
    } catch (IllegalAccessException e) {
      return -1;
    }
  }

  private void closeStreams() throws Exception {
    for (FSDataInputStream s : streams) if (s != null) s.close();
    streams = new FSDataInputStream[0];
    paths = new Path[0];
    if (fs != null) fs.close();
    fs = null;
  }

  /**
   * file-content.ts in Java: seeds whose mixed values lie close after the first one's share one
   * buffer (the scenario's seeds do: its files are windows of one pattern), others get their own.
   */
  private void holdContent(int[] seeds, int size) {
    content = new byte[seeds.length][];
    contentStart = new int[seeds.length];
    if (seeds.length == 0) return;
    int first = seeds[0] * 0x9E3779B9;
    long spread = 0;
    long[] shifts = new long[seeds.length];
    for (int i = 0; i < seeds.length; i++) {
      shifts[i] = Integer.toUnsignedLong(seeds[i] * 0x9E3779B9 - first);
      spread = Math.max(spread, shifts[i]);
    }
    if (spread > MAX_SHARED_SPREAD_WORDS) {
      for (int i = 0; i < seeds.length; i++) content[i] = content(seeds[i], size);
      return;
    }
    byte[] shared = content(seeds[0], size + (int) spread * 4);
    for (int i = 0; i < seeds.length; i++) {
      content[i] = shared;
      contentStart[i] = (int) shifts[i] * 4;
    }
  }

  /** The known content: the ozone fixture's KeyPattern (MurmurHash3's finaliser per 32-bit word). */
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

  /** read-offsets.ts in Java: mulberry32 draws, scaled in doubles. */
  static final class Positions {
    private int state;
    private final int files;
    private final long starts;
    private final int readBytes;
    private final boolean aligned;
    int file;
    long offset;

    Positions(int seed, int files, long fileSize, int readBytes, boolean aligned) {
      this.state = seed;
      this.files = files;
      this.readBytes = readBytes;
      this.aligned = aligned;
      this.starts = aligned ? fileSize / readBytes : fileSize - readBytes + 1;
    }

    private double draw() {
      state += 0x6D2B79F5;
      int z = state;
      z = (z ^ (z >>> 15)) * (z | 1);
      z ^= z + (z ^ (z >>> 7)) * (z | 61);
      return (double) ((z ^ (z >>> 14)) & 0xFFFFFFFFL);
    }

    void next() {
      file = (int) Math.floor(draw() / TWO_POW_32 * files);
      long k = (long) Math.floor(draw() / TWO_POW_32 * starts);
      offset = aligned ? k * readBytes : k;
    }
  }

  private ObjectNode run(JsonNode req) throws Exception {
    final long durationNs = req.get("durationMs").asLong() * 1_000_000L;
    final int readBytes = req.get("readBytes").asInt();
    JsonNode sequentialNode = req.get("sequential");
    final boolean sequential = sequentialNode != null && sequentialNode.asBoolean();
    final boolean aligned = req.get("aligned").asBoolean();
    final int checkEvery = req.get("checkEvery").asInt();
    JsonNode seeds = req.get("seeds");
    final int readers = seeds.size();
    final AtomicLong ops = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final AtomicLong wrong = new AtomicLong();
    final AtomicLong checked = new AtomicLong();
    final AtomicLong checkNs = new AtomicLong();
    final AtomicReference<String> firstError = new AtomicReference<>();
    final long[][] latencies = new long[readers][];
    final int[] counts = new int[readers];
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    final long cpuBefore = os.getProcessCpuTime();
    final long started = System.nanoTime();
    final long end = started + durationNs;
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < readers; t++) {
      final int index = t;
      final int seed = seeds.get(t).asInt();
      Thread th = new Thread(sequential ? () -> {
        // Whole files start to end, a stream each; the file drawn as the positional readers draw
        // theirs (the offset half of the draw unused). A file begun is finished after the window.
        Positions p = new Positions(seed, paths.length, fileSize, 1, false);
        byte[] buffer = new byte[readBytes];
        long[] lat = new long[1 << 10];
        int n = 0;
        long drawn = 0;
        while (System.nanoTime() < end) {
          p.next();
          boolean check = drawn++ % checkEvery == 0;
          byte[] want = content[p.file];
          int start = contentStart[p.file];
          long began = System.nanoTime();
          long read = 0;
          boolean same = true;
          try (FSDataInputStream in = fs.open(paths[p.file])) {
            for (int got; (got = in.read(buffer, 0, readBytes)) > 0; ) {
              if (check && same) {
                long c0 = System.nanoTime();
                same = read + got <= fileSize
                    && Arrays.equals(buffer, 0, got, want, start + (int) read, start + (int) read + got);
                checkNs.addAndGet(System.nanoTime() - c0);
              }
              read += got;
            }
          } catch (Throwable e) {
            errors.incrementAndGet();
            firstError.compareAndSet(null, chain(e));
            continue;
          }
          if (n == lat.length) lat = Arrays.copyOf(lat, n * 2);
          lat[n++] = System.nanoTime() - began;
          if (check) checked.incrementAndGet();
          if (read != fileSize || !same) {
            wrong.incrementAndGet();
            firstError.compareAndSet(null, read != fileSize
                ? "file " + p.file + ": read " + read + " bytes to its end, not " + fileSize
                : "file " + p.file + ": the bytes read differ from the file's content");
            continue;
          }
          ops.incrementAndGet();
        }
        latencies[index] = lat;
        counts[index] = n;
      } : () -> {
        Positions p = new Positions(seed, streams.length, fileSize, readBytes, aligned);
        byte[] buffer = new byte[readBytes];
        long[] lat = new long[1 << 14];
        int n = 0;
        long good = 0;
        while (System.nanoTime() < end) {
          p.next();
          long began = System.nanoTime();
          try {
            streams[p.file].readFully(p.offset, buffer, 0, readBytes);
          } catch (Throwable e) {
            errors.incrementAndGet();
            firstError.compareAndSet(null, chain(e));
            continue;
          }
          long took = System.nanoTime() - began;
          if (n == lat.length) lat = Arrays.copyOf(lat, n * 2);
          lat[n++] = took;
          if (good++ % checkEvery == 0) {
            long c0 = System.nanoTime();
            int off = contentStart[p.file] + (int) p.offset;
            boolean same = Arrays.equals(buffer, 0, readBytes, content[p.file], off, off + readBytes);
            checkNs.addAndGet(System.nanoTime() - c0);
            checked.incrementAndGet();
            if (!same) {
              wrong.incrementAndGet();
              firstError.compareAndSet(null, "file " + p.file + " at " + p.offset + ": the bytes read differ from the file's content");
              continue;
            }
          }
          ops.incrementAndGet();
        }
        latencies[index] = lat;
        counts[index] = n;
      }, "reader-" + t);
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) th.join();
    long measuredNs = System.nanoTime() - started;
    long cpuNs = os.getProcessCpuTime() - cpuBefore;
    int total = 0;
    for (int c : counts) total += c;
    long[] all = new long[total];
    int at = 0;
    for (int t = 0; t < readers; t++) {
      System.arraycopy(latencies[t], 0, all, at, counts[t]);
      at += counts[t];
    }
    Arrays.sort(all);
    ObjectNode a = JSON.createObjectNode();
    a.put("ops", ops.get());
    a.put("errors", errors.get());
    a.put("wrongBytes", wrong.get());
    a.put("checkedOps", checked.get());
    a.put("measuredMs", measuredNs / 1e6);
    a.put("cpuSeconds", cpuNs / 1e9);
    a.put("checkMicrosPerRead", checked.get() == 0 ? 0 : checkNs.get() / 1e3 / checked.get());
    a.put("p50Ms", percentile(all, 50) / 1e6);
    a.put("p99Ms", percentile(all, 99) / 1e6);
    a.put("p999Ms", percentile(all, 99.9) / 1e6);
    a.put("maxMs", all.length == 0 ? 0 : all[all.length - 1] / 1e6);
    a.put("meanMs", all.length == 0 ? 0 : Arrays.stream(all).average().orElse(0) / 1e6);
    long reconstructed = reconstructions();
    if (reconstructed >= 0 && reconstructionsAtOpen >= 0)
      a.put("ecReconstructionReads", reconstructed - reconstructionsAtOpen);
    if (firstError.get() != null) a.put("firstError", firstError.get());
    return a;
  }

  private static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) return 0;
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }
}
