package fastpath.ozonemeta;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hdds.client.RatisReplicationConfig;
import org.apache.hadoop.hdds.client.ReplicationConfig;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.hdds.protocol.proto.HddsProtos;
import org.apache.hadoop.ozone.client.BucketArgs;
import org.apache.hadoop.ozone.client.ObjectStore;
import org.apache.hadoop.ozone.client.OzoneBucket;
import org.apache.hadoop.ozone.client.OzoneClient;
import org.apache.hadoop.ozone.client.OzoneClientFactory;
import org.apache.hadoop.ozone.client.OzoneKey;
import org.apache.hadoop.ozone.client.OzoneKeyDetails;
import org.apache.hadoop.ozone.client.OzoneVolume;
import org.apache.hadoop.ozone.client.io.OzoneOutputStream;
import org.apache.hadoop.ozone.om.exceptions.OMException;
import org.apache.hadoop.ozone.om.helpers.BucketLayout;
import org.apache.hadoop.ozone.om.helpers.OzoneFileStatus;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The Java side of the ozone-meta benchmark: Ozone's own client (OzoneClientFactory's RpcClient,
 * the ObjectStore and OzoneBucket API, Hadoop RPC to the OM) running one operation per window
 * with N threads sharing one client, each operation timed, with the JVM's process CPU over the
 * window. It keeps its round's keys as fastpath's client process does (round-keys.ts): what the
 * create windows made is what the later windows look up, stat, rename and delete, and `verify`
 * lists the round's prefix against what should be there. One JSON request per stdin line, one
 * JSON answer per stdout line; Ozone's logging goes to stderr.
 */
public final class OzoneMetaBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ReplicationConfig REPLICATION =
      RatisReplicationConfig.getInstance(HddsProtos.ReplicationFactor.THREE);

  private OzoneClient client;
  private OzoneBucket bucket;
  private String listPrefix;
  private int listKeys;
  private Round round;

  public static void main(String[] args) throws Exception {
    PrintStream out =
        new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
    // Everything else (Ozone's logging, stray prints) goes to stderr: stdout carries answers only.
    System.setOut(System.err);
    OzoneMetaBench bench = new OzoneMetaBench();
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
    switch (op) {
      case "init":
        return init(req);
      case "begin":
        round = new Round(req.get("prefix").asText());
        return JSON.createObjectNode();
      case "window":
        return window(req.get("operation").asText(), req.get("workers").asInt(), req.get("windowMs").asLong());
      case "verify":
        return round.verify(listFiles(round.prefix));
      case "close":
        return JSON.createObjectNode();
      default:
        throw new IllegalArgumentException("unknown op " + op);
    }
  }

  private ObjectNode init(JsonNode req) throws Exception {
    JsonNode target = req.get("target");
    OzoneConfiguration conf = new OzoneConfiguration();
    Iterator<Map.Entry<String, JsonNode>> props = target.get("properties").fields();
    while (props.hasNext()) {
      Map.Entry<String, JsonNode> p = props.next();
      conf.set(p.getKey(), p.getValue().asText());
    }
    // The client keeps its datanode connections while a workload of this kind runs; by default
    // it closes them after 10 s idle, which the pauses between this benchmark's windows (the
    // other clients' turns) would otherwise turn into a reconnection inside every create window.
    conf.set("scm.container.client.idle.threshold", "1h");
    // On a secure cluster the client logs in as the cluster's Kerberos user from its keytab, with
    // the cluster's security keys (among the properties above), before it makes its client.
    JsonNode login = target.get("login");
    if (login != null && !login.isNull()) {
      UserGroupInformation.setConfiguration(conf);
      UserGroupInformation.loginUserFromKeytab(login.get("principal").asText(), login.get("keytab").asText());
    }
    String om = target.get("omAddress").asText();
    if (conf.get("ozone.om.service.ids") != null) {
      client = OzoneClientFactory.getRpcClient(om, conf);
    } else {
      conf.set("ozone.om.address", om);
      client = OzoneClientFactory.getRpcClient(conf);
    }
    ObjectStore store = client.getObjectStore();
    String volumeName = req.get("volume").asText();
    String bucketName = req.get("bucket").asText();
    try {
      store.createVolume(volumeName);
    } catch (OMException e) {
      if (e.getResult() != OMException.ResultCodes.VOLUME_ALREADY_EXISTS) throw e;
    }
    OzoneVolume volume = store.getVolume(volumeName);
    try {
      volume.createBucket(
          bucketName, BucketArgs.newBuilder().setBucketLayout(BucketLayout.FILE_SYSTEM_OPTIMIZED).build());
    } catch (OMException e) {
      if (e.getResult() != OMException.ResultCodes.BUCKET_ALREADY_EXISTS) throw e;
    }
    bucket = volume.getBucket(bucketName);
    listPrefix = req.get("listPrefix").asText();
    listKeys = req.get("listKeys").asInt();
    prepareList();
    ObjectNode answer = JSON.createObjectNode();
    answer.put("transport", "hadoop-rpc");
    answer.put("version", org.apache.hadoop.ozone.util.OzoneVersionInfo.OZONE_VERSION_INFO.getVersion());
    answer.put("layout", bucket.getBucketLayout().name());
    return answer;
  }

  /** Every file under {@code prefix/}, as OzoneBucket#listKeys walks them. */
  private List<String> listFiles(String prefix) throws Exception {
    List<String> files = new ArrayList<>();
    // Made once, not per key (as in fastpath's runner): the filter is the benchmark's work.
    String dir = prefix + "/";
    Iterator<? extends OzoneKey> it = bucket.listKeys(dir);
    while (it.hasNext()) {
      String name = it.next().getName();
      if (!name.endsWith("/") && name.startsWith(dir)) files.add(name);
    }
    return files;
  }

  private void createKey(String name, byte[] data) throws Exception {
    try (OzoneOutputStream out =
        bucket.createKey(name, data == null ? 0 : data.length, REPLICATION, new HashMap<>())) {
      if (data != null) out.write(data);
    }
  }

  private void prepareList() throws Exception {
    Set<String> have = new HashSet<>(listFiles(listPrefix));
    List<String> names = new ArrayList<>();
    for (int i = 0; i < listKeys; i++) {
      String name = String.format("%s/k-%05d", listPrefix, i);
      if (!have.contains(name)) names.add(name);
    }
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      Thread th =
          new Thread(
              () -> {
                for (int i; (i = next.getAndIncrement()) < names.size(); ) {
                  try {
                    createKey(names.get(i), null);
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    return;
                  }
                }
              });
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) th.join();
    if (failure.get() != null) throw new IllegalStateException("making the list keys", failure.get());
  }

  /** One operation of a window; false when no key is left for this worker. */
  private interface Step {
    boolean run(int worker) throws Exception;
  }

  private Step step(String op) {
    switch (op) {
      case "create-empty":
      case "create-1b":
        {
          final byte[] data = op.equals("create-1b") ? new byte[] {0x2a} : null;
          return w -> {
            String name = round.nextCreate(op, w);
            createKey(name, data);
            round.created(op, name);
            return true;
          };
        }
      case "lookup":
        return w -> {
          Round.Key k = round.nextExisting();
          OzoneKeyDetails d = bucket.getKey(k.name);
          if (d.getDataSize() != k.size)
            throw new IllegalStateException(k.name + ": " + d.getDataSize() + " bytes, " + k.size + " written");
          return true;
        };
      case "file-status":
        return w -> {
          Round.Key k = round.nextExisting();
          OzoneFileStatus s = bucket.getFileStatus(k.name);
          if (s.isDirectory() || s.getKeyInfo().getDataSize() != k.size)
            throw new IllegalStateException(k.name + ": not a file of " + k.size + " bytes");
          return true;
        };
      case "list":
        return w -> {
          int n = listFiles(listPrefix).size();
          if (n != listKeys)
            throw new IllegalStateException(n + " keys listed under " + listPrefix + "/, " + listKeys + " there");
          return true;
        };
      case "rename":
        return w -> {
          Round.Move move = round.nextRename();
          if (move == null) return false;
          try {
            bucket.renameKey(move.from, move.to);
          } catch (Exception e) {
            round.renamed(move, false);
            throw e;
          }
          round.renamed(move, true);
          return true;
        };
      case "delete":
        return w -> {
          String name = round.nextDelete();
          if (name == null) return false;
          bucket.deleteKey(name);
          round.deleted(name);
          return true;
        };
      default:
        throw new IllegalArgumentException("unknown operation " + op);
    }
  }

  private ObjectNode window(String op, int workers, long windowMs) throws Exception {
    if (round == null) throw new IllegalStateException("window before begin");
    final Step step = step(op);
    final AtomicLong ops = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final AtomicBoolean exhausted = new AtomicBoolean();
    final AtomicLong lastEnd = new AtomicLong();
    final AtomicReference<String> firstError = new AtomicReference<>();
    final List<List<Double>> latencies = new ArrayList<>();
    for (int w = 0; w < workers; w++) latencies.add(new ArrayList<>());
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    final long cpuBefore = os.getProcessCpuTime();
    final long started = System.nanoTime();
    final long deadline = started + windowMs * 1_000_000L;
    lastEnd.set(started);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < workers; t++) {
      final int w = t;
      Thread th =
          new Thread(
              () -> {
                List<Double> mine = latencies.get(w);
                while (System.nanoTime() < deadline) {
                  long began = System.nanoTime();
                  try {
                    if (!step.run(w)) {
                      exhausted.set(true);
                      break;
                    }
                    long end = System.nanoTime();
                    mine.add((end - began) / 1e3);
                    ops.incrementAndGet();
                  } catch (Throwable e) {
                    errors.incrementAndGet();
                    firstError.compareAndSet(null, chain(e));
                  }
                  long end = System.nanoTime();
                  lastEnd.accumulateAndGet(end, Math::max);
                }
              },
              "worker-" + t);
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) th.join();
    long cpuNs = os.getProcessCpuTime() - cpuBefore;
    ObjectNode a = JSON.createObjectNode();
    a.put("ops", ops.get());
    a.put("errors", errors.get());
    a.put("elapsedMs", (lastEnd.get() - started) / 1e6);
    a.put("cpuMs", cpuNs / 1e6);
    ArrayNode lat = a.putArray("latenciesUs");
    for (List<Double> mine : latencies) for (double l : mine) lat.add(l);
    if (exhausted.get()) a.put("exhausted", true);
    if (firstError.get() != null) a.put("firstError", firstError.get());
    return a;
  }

  /** One round's keys, as round-keys.ts keeps them for fastpath's client. */
  private static final class Round {
    static final class Key {
      final String name;
      final long size;

      Key(String name, long size) {
        this.name = name;
        this.size = size;
      }
    }

    static final class Move {
      final int key;
      final String from;
      final String to;

      Move(int key, String from, String to) {
        this.key = key;
        this.from = from;
        this.to = to;
      }
    }

    final String prefix;
    private final List<String> empty = new ArrayList<>();
    private final List<String> emptyNow = new ArrayList<>();
    private final List<String> oneByte = new ArrayList<>();
    private final Map<String, AtomicInteger> perWorker = new ConcurrentHashMap<>();
    private final Set<String> deleted = ConcurrentHashMap.newKeySet();
    private List<Key> existing;
    private int nextExisting;
    private ArrayDeque<Integer> renameQueue;
    private List<String> deletable;
    private int nextDelete;

    Round(String prefix) {
      this.prefix = prefix;
    }

    String nextCreate(String op, int w) {
      String dir = op.equals("create-empty") ? "e" : "b";
      int i = perWorker.computeIfAbsent(dir + "/" + w, k -> new AtomicInteger()).getAndIncrement();
      return prefix + "/" + dir + "/w" + w + "-" + i;
    }

    synchronized void created(String op, String name) {
      if (op.equals("create-1b")) {
        oneByte.add(name);
      } else {
        empty.add(name);
        emptyNow.add(name);
      }
    }

    synchronized Key nextExisting() {
      if (existing == null) {
        existing = new ArrayList<>();
        for (String n : emptyNow) existing.add(new Key(n, 0));
        for (String n : oneByte) existing.add(new Key(n, 1));
      }
      if (existing.isEmpty()) throw new IllegalStateException("no keys were created in this round");
      return existing.get(nextExisting++ % existing.size());
    }

    /** The next empty key to move to the other of its two names; null when none is free. */
    synchronized Move nextRename() {
      if (renameQueue == null) {
        renameQueue = new ArrayDeque<>();
        for (int i = 0; i < empty.size(); i++) renameQueue.add(i);
      }
      Integer key = renameQueue.poll();
      if (key == null) return null;
      String from = emptyNow.get(key);
      String created = empty.get(key);
      return new Move(key, from, from.equals(created) ? created + ".renamed" : created);
    }

    synchronized void renamed(Move move, boolean done) {
      if (done) emptyNow.set(move.key, move.to);
      renameQueue.add(move.key);
    }

    synchronized String nextDelete() {
      if (deletable == null) {
        deletable = new ArrayList<>(emptyNow);
        deletable.addAll(oneByte);
      }
      return nextDelete < deletable.size() ? deletable.get(nextDelete++) : null;
    }

    void deleted(String name) {
      deleted.add(name);
    }

    synchronized ObjectNode verify(List<String> listedNames) {
      Set<String> listed = new HashSet<>(listedNames);
      Set<String> expected = new LinkedHashSet<>();
      for (List<String> names : List.of(emptyNow, oneByte))
        for (String n : names) if (!deleted.contains(n)) expected.add(n);
      long found = 0;
      String firstProblem = null;
      for (String n : expected) {
        if (listed.contains(n)) found++;
        else if (firstProblem == null) firstProblem = n + " not found";
      }
      long unexpected = 0;
      for (String n : listed) {
        if (!expected.contains(n)) {
          unexpected++;
          if (firstProblem == null)
            firstProblem =
                n + " listed but " + (deleted.contains(n) ? "deleted" : "renamed away or never created");
        }
      }
      ObjectNode a = JSON.createObjectNode();
      a.put("expected", expected.size());
      a.put("found", found);
      a.put("missing", expected.size() - found);
      a.put("unexpected", unexpected);
      if (firstProblem != null) a.put("firstProblem", firstProblem);
      return a;
    }
  }
}
