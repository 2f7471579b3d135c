package fastpath.ratisfixture;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Apache Ratis's own Java client ({@code RaftClient}, gRPC) against the fixture's group, driven
 * over stdin/stdout: single writes and queries for tests, and a load of pipelined asynchronous
 * writes ({@code RaftClient.async()}) for the benchmark.
 *
 * <p>Arguments: {@code --group <uuid> --peer <id>=<host:port> ... [--outstanding n]}, where
 * {@code n} is the client's bound of outstanding asynchronous requests
 * ({@code raft.client.async.outstanding-requests.max}). Prints {@code {"event":"ready"}}, then
 * answers each command line {@code <n> <op> [args]} with one JSON line carrying {@code "id":n}:
 *
 * <ul>
 *   <li>{@code write <base64>}: one write; its reply's log index, and the state machine's answer
 *       decoded (index, position);
 *   <li>{@code query <base64>}: one read-only query; the answer as base64;
 *   <li>{@code load <sizeBytes> <writes> <window> <seed>}: {@code writes} writes of
 *       {@code sizeBytes} random bytes, at most {@code window} outstanding, through
 *       {@code async().send}; the wall time, this JVM's CPU time over the load (every thread,
 *       the JIT and GC included) and each write's latency in microseconds;
 *   <li>{@code close}: closes the client and exits.
 * </ul>
 */
public final class RatisClientDriver {
  private RatisClientDriver() {}

  public static void main(String[] args) throws Exception {
    String group = null;
    int outstanding = 32;
    List<RaftPeer> peers = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--group" -> group = args[++i];
        case "--outstanding" -> outstanding = Integer.parseInt(args[++i]);
        case "--peer" -> {
          String[] kv = args[++i].split("=", 2);
          peers.add(RaftPeer.newBuilder().setId(kv[0]).setAddress(kv[1]).build());
        }
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (group == null || peers.isEmpty()) throw new IllegalArgumentException("--group and --peer are required");
    RaftProperties properties = new RaftProperties();
    RaftClientConfigKeys.Async.setOutstandingRequestsMax(properties, outstanding);
    RaftGroup raftGroup = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.fromString(group)), peers);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    try (RaftClient client = RaftClient.newBuilder().setRaftGroup(raftGroup).setProperties(properties).build()) {
      out.println("{\"event\":\"ready\"}");
      CommandLoop.run(out, Set.of("close"), (op, words) -> switch (op) {
        case "write" -> {
          RaftClientReply reply = client.io().send(message(words));
          ByteBuffer answer = reply.getMessage().getContent().asReadOnlyByteBuffer();
          yield "\"ok\":" + reply.isSuccess() + ",\"logIndex\":" + reply.getLogIndex()
              + ",\"index\":" + answer.getLong() + ",\"position\":" + answer.getLong();
        }
        case "query" -> {
          RaftClientReply reply = client.io().sendReadOnly(message(words));
          yield "\"ok\":" + reply.isSuccess() + ",\"content\":"
              + Json.quote(Base64.getEncoder().encodeToString(reply.getMessage().getContent().toByteArray()));
        }
        case "load" -> load(client, os, Integer.parseInt(words[0]), Integer.parseInt(words[1]),
            Integer.parseInt(words[2]), Long.parseLong(words[3]));
        case "close" -> "\"ok\":true";
        default -> CommandLoop.unknown(op);
      });
    } finally {
      System.out.flush();
      // The client's gRPC threads are not all daemons: exit rather than wait for them.
      Runtime.getRuntime().halt(0);
    }
  }

  /** The content of a write or query: the command's base64 argument, or nothing. */
  private static Message message(String[] words) {
    byte[] content = words.length > 0 ? Base64.getDecoder().decode(words[0]) : new byte[0];
    return Message.valueOf(ByteString.copyFrom(content));
  }

  /** Pipelined writes with at most {@code window} outstanding; the answer's fields. */
  private static String load(RaftClient client, com.sun.management.OperatingSystemMXBean os,
      int sizeBytes, int writes, int window, long seed) throws Exception {
    byte[] bytes = new byte[sizeBytes];
    new Random(seed).nextBytes(bytes);
    // One payload for every write: the client sends it as is, and the bytes are not the measure.
    Message message = Message.valueOf(ByteString.copyFrom(bytes));
    long[] latencyNs = new long[writes];
    Semaphore slots = new Semaphore(window);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<CompletableFuture<RaftClientReply>> sent = new ArrayList<>(writes);
    long cpuStart = os.getProcessCpuTime();
    long start = System.nanoTime();
    for (int i = 0; i < writes && failure.get() == null; i++) {
      slots.acquire();
      final int k = i;
      final long t0 = System.nanoTime();
      sent.add(client.async().send(message).whenComplete((reply, err) -> {
        latencyNs[k] = System.nanoTime() - t0;
        if (err != null) failure.compareAndSet(null, err);
        else if (!reply.isSuccess()) failure.compareAndSet(null, reply.getException());
        slots.release();
      }));
    }
    CompletableFuture.allOf(sent.toArray(new CompletableFuture[0])).handle((r, e) -> null).get(10, TimeUnit.MINUTES);
    long wallNs = System.nanoTime() - start;
    long cpuNs = os.getProcessCpuTime() - cpuStart;
    if (failure.get() != null) {
      return "\"ok\":false,\"message\":" + Json.quote(Json.describe(failure.get()));
    }
    StringBuilder b = new StringBuilder(writes * 6 + 100);
    b.append("\"ok\":true,\"writes\":").append(writes)
        .append(",\"wallNs\":").append(wallNs).append(",\"cpuNs\":").append(cpuNs).append(",\"latenciesUs\":[");
    for (int i = 0; i < writes; i++) {
      if (i > 0) b.append(',');
      b.append(latencyNs[i] / 1000);
    }
    return b.append(']').toString();
  }
}
