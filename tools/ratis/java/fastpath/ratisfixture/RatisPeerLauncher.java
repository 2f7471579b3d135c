package fastpath.ratisfixture;

import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.TimeDuration;

/**
 * Runs one peer of a Ratis group (gRPC transport) with {@link AppendLogStateMachine}, one JVM per
 * peer so that the test fixture can kill, pause (SIGSTOP) and restart each on its own.
 *
 * <p>Arguments: {@code --id <peerId> --group <uuid> --peer <id>=<host:port> (one per member)
 * --storage <dir> (--format | --recover) [--election-min-ms n] [--election-max-ms n]
 * [--prop key=value ...]}. The peer listens on its own member address (server, client and admin
 * services on one port).
 *
 * <p>Once serving it prints one JSON line {@code {"event":"ready",...}} on stdout. Then it reads
 * commands from stdin, one per line, {@code <n> <op> [args]}, and answers each with one JSON
 * line carrying {@code "id":n}:
 *
 * <ul>
 *   <li>{@code info}: role, term, leader id, whether this peer is a leader ready to serve, last
 *       applied index;
 *   <li>{@code transfer <peerId> <timeoutMs>}: asks the group (through Ratis's admin client) to
 *       transfer the leadership to that peer;
 *   <li>{@code stop}: closes the server and exits.
 * </ul>
 *
 * <p>End of stdin (the test process is gone) closes the server and exits as well.
 */
public final class RatisPeerLauncher {
  private RatisPeerLauncher() {}

  public static void main(String[] args) throws Exception {
    String id = null;
    String group = null;
    String storage = null;
    boolean format = false;
    long electionMinMs = 400;
    long electionMaxMs = 800;
    List<RaftPeer> peers = new ArrayList<>();
    RaftProperties properties = new RaftProperties();
    List<String[]> extra = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--id" -> id = args[++i];
        case "--group" -> group = args[++i];
        case "--storage" -> storage = args[++i];
        case "--format" -> format = true;
        case "--recover" -> format = false;
        case "--election-min-ms" -> electionMinMs = Long.parseLong(args[++i]);
        case "--election-max-ms" -> electionMaxMs = Long.parseLong(args[++i]);
        case "--peer" -> {
          String[] kv = args[++i].split("=", 2);
          peers.add(RaftPeer.newBuilder().setId(kv[0]).setAddress(kv[1]).build());
        }
        case "--prop" -> extra.add(args[++i].split("=", 2));
        default -> throw new IllegalArgumentException("unknown argument " + a);
      }
    }
    if (id == null || group == null || storage == null || peers.isEmpty()) {
      throw new IllegalArgumentException("--id, --group, --storage and --peer are required");
    }
    RaftPeerId self = RaftPeerId.valueOf(id);
    RaftPeer me = peers.stream().filter(p -> p.getId().equals(self)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("--id is not one of the --peer members"));
    String address = me.getAddress();
    int colon = address.lastIndexOf(':');

    // Settings for tests: short elections, and room for writes of a few MiB (Ozone's chunks).
    RaftServerConfigKeys.setStorageDir(properties, List.of(new File(storage)));
    RaftServerConfigKeys.Rpc.setTimeoutMin(properties, TimeDuration.valueOf(electionMinMs, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(properties, TimeDuration.valueOf(electionMaxMs, TimeUnit.MILLISECONDS));
    GrpcConfigKeys.Server.setHost(properties, address.substring(0, colon));
    GrpcConfigKeys.Server.setPort(properties, Integer.parseInt(address.substring(colon + 1)));
    for (String[] kv : extra) properties.set(kv[0], kv[1]);

    RaftGroup raftGroup = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.fromString(group)), peers);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    RaftServer server;
    try {
      server = RaftServer.newBuilder()
          .setServerId(self)
          .setGroup(raftGroup)
          .setStateMachine(new AppendLogStateMachine())
          .setProperties(properties)
          .setOption(format ? RaftStorage.StartupOption.FORMAT : RaftStorage.StartupOption.RECOVER)
          .build();
      server.start();
    } catch (Exception e) {
      out.println("{\"event\":\"failed\",\"message\":" + Json.quote(Json.describe(e)) + "}");
      System.exit(1);
      return;
    }
    out.println("{\"event\":\"ready\",\"id\":" + Json.quote(id) + ",\"address\":" + Json.quote(address)
        + ",\"groupId\":" + Json.quote(group) + ",\"pid\":" + ProcessHandle.current().pid()
        + ",\"ratisVersion\":" + Json.quote(RaftServer.class.getPackage().getImplementationVersion()) + "}");

    RaftGroupId groupId = raftGroup.getGroupId();
    CommandLoop.run(out, Set.of("stop"), (op, words) -> switch (op) {
      case "info" -> info(server.getDivision(groupId).getInfo());
      case "transfer" -> transfer(raftGroup, RaftPeerId.valueOf(words[0]), Long.parseLong(words[1]));
      case "stop" -> "\"ok\":true";
      default -> CommandLoop.unknown(op);
    });
    server.close();
    System.exit(0);
  }

  // A client of its own per call: the admin request finds the leader, and the leader hands over
  // once the target's log has caught up (or answers why it did not).
  private static String transfer(RaftGroup raftGroup, RaftPeerId target, long timeoutMs) throws Exception {
    try (RaftClient client = RaftClient.newBuilder().setRaftGroup(raftGroup).setProperties(new RaftProperties()).build()) {
      RaftClientReply reply = client.admin().transferLeadership(target, timeoutMs);
      return "\"ok\":" + reply.isSuccess()
          + (reply.getException() == null ? "" : ",\"message\":" + Json.quote(Json.describe(reply.getException())));
    }
  }

  private static String info(DivisionInfo info) {
    RaftPeerId leader = info.getLeaderId();
    return "\"ok\":true,\"role\":" + Json.quote(info.getCurrentRole().name())
        + ",\"term\":" + info.getCurrentTerm()
        + ",\"leaderId\":" + (leader == null ? "null" : Json.quote(leader.toString()))
        + ",\"leaderReady\":" + (info.isLeader() && info.isLeaderReady())
        + ",\"lastAppliedIndex\":" + info.getLastAppliedIndex();
  }
}
