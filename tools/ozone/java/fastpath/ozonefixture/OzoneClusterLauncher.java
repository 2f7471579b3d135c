package fastpath.ozonefixture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hdds.client.RatisReplicationConfig;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.hdds.protocol.DatanodeDetails;
import org.apache.hadoop.hdds.protocol.proto.HddsProtos;
import org.apache.hadoop.hdds.scm.pipeline.Pipeline;
import org.apache.hadoop.ozone.HddsDatanodeService;
import org.apache.hadoop.ozone.MiniOzoneCluster;
import org.apache.hadoop.ozone.MiniOzoneHAClusterImpl;
import org.apache.hadoop.ozone.UniformDatanodesFactory;
import org.apache.hadoop.ozone.om.OzoneManager;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.VersionInfo;
import org.apache.ozone.test.GenericTestUtils;

/**
 * Starts a real MiniOzoneCluster and speaks a line protocol with its parent process:
 *
 * <ul>
 *   <li>stdout carries JSON lines only: one {"event":"ready",...} with every address, then one
 *       answer per request; Ozone's own logging goes to stderr.
 *   <li>stdin carries JSON requests, one a line: {"id":1,"op":"writeKeys","keys":[...]},
 *       {"id":2,"op":"stopDatanode","uuid":"..."}, {"id":3,"op":"restartDatanode","uuid":"..."},
 *       {"id":4,"op":"datanodeCounters"},
 *       {"id":5,"op":"lookupKey","volume":"v","bucket":"b","key":"k"},
 *       {"id":7,"op":"readKey","volume":"v","bucket":"b","key":"k"},
 *       {"id":8,"op":"listKeys","volume":"v","bucket":"b","prefix":"p"},
 *       {"id":9,"op":"startS3Gateway"},
 *       {"id":10,"op":"linkS3Bucket","name":"n","volume":"v","bucket":"b"},
 *       with --om-ha: {"id":11,"op":"omLeader"}, {"id":12,"op":"transferOmLeader","nodeId":"omNode-2"},
 *       {"id":13,"op":"stopOm","nodeId":"omNode-1"}, {"id":14,"op":"restartOm","nodeId":"omNode-1"},
 *       {"id":15,"op":"inspectKey","volume":"v","bucket":"b","key":"k"}, with --secure:
 *       {"id":16,"op":"getDelegationToken","renewer":"r","file":"/path"},
 *       {"id":17,"op":"clientCounters"} and
 *       {"id":6,"op":"stop"}. End of stdin (the parent is
 *       gone) stops the cluster too, as does SIGTERM or SIGINT.
 * </ul>
 *
 * Arguments: --base-dir DIR --datanodes N [--om-grpc-port P] [--om-ha N --om-service-id ID]
 * [--secure DIR --client-principal P --client-keytab K] [--conf key=value]...
 *
 * <p>With --secure (the security keys themselves come as --conf), the cluster is built the way
 * Ozone's own secure tests build theirs: through the HA builder with an SCM service id of one SCM,
 * whose init creates the root CA and the SCM's certificate (the plain builder never runs that
 * init, and without it a secure SCM has no certificate client when it sets up its CA). Every
 * daemon logs in as the one service principal (UGI's login is one per JVM). The Java client of the
 * ops above runs as the client principal, logged in from its keytab (a UGI of its own, beside the
 * daemons' login), and DIR receives what a client in another process needs: the cluster's
 * configuration as ozone-site.xml and the CA certificates the OM hands its clients, as ca.pem.
 */
public final class OzoneClusterLauncher {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static PrintStream protocol;
  private static final AtomicBoolean stopped = new AtomicBoolean();
  /** Ozone's S3 gateway in this JVM, once a request started it; stopped before the cluster. */
  private static volatile S3GatewayRunner s3Gateway;

  private OzoneClusterLauncher() {}

  public static void main(String[] args) throws Exception {
    // Everything Ozone prints goes to stderr; the real stdout is reserved for the protocol.
    protocol =
        new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);

    String baseDir = null;
    int datanodes = 3;
    int omGrpcPort = 0;
    int omHa = 0;
    String omServiceId = "omservice";
    String secureDir = null;
    String clientPrincipal = null;
    String clientKeytab = null;
    Map<String, String> extra = new TreeMap<>();
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--base-dir" -> baseDir = value;
        case "--datanodes" -> datanodes = Integer.parseInt(value);
        case "--om-grpc-port" -> omGrpcPort = Integer.parseInt(value);
        case "--om-ha" -> omHa = Integer.parseInt(value);
        case "--om-service-id" -> omServiceId = value;
        case "--secure" -> secureDir = value;
        case "--client-principal" -> clientPrincipal = value;
        case "--client-keytab" -> clientKeytab = value;
        case "--conf" -> {
          int eq = value.indexOf('=');
          if (eq <= 0) fail("--conf needs key=value, got " + value);
          extra.put(value.substring(0, eq), value.substring(eq + 1));
        }
        default -> fail("unknown argument " + args[i]);
      }
      i++;
    }
    if (baseDir == null) fail("--base-dir is required");
    if (datanodes < 1) fail("--datanodes must be >= 1");
    if (secureDir != null && (clientPrincipal == null || clientKeytab == null)) {
      fail("--secure needs --client-principal and --client-keytab");
    }

    // MiniOzoneCluster puts its directories under ${test.build.data}/<cluster id>.
    System.setProperty("test.build.data", baseDir);
    startPortsInFreeRange(datanodes);
    OzoneConfiguration conf = new OzoneConfiguration();
    // MiniOzoneClusterImpl picks free ports for everything except the OM gRPC server, which it
    // would start on the default 8981 (and clash with any other cluster on the machine).
    conf.setInt("ozone.om.grpc.port", omGrpcPort > 0 ? omGrpcPort : freeLoopbackPort());
    // MiniOzoneHAClusterImpl picks free ports for each OM's RPC, HTTP and Ratis addresses but not
    // for its gRPC server: each OM reads ozone.om.grpc.port suffixed with the service id and its
    // node id (the builder names the nodes omNode-1..N), set here before the build.
    for (int i = 1; i <= omHa; i++) {
      conf.setInt("ozone.om.grpc.port." + omServiceId + ".omNode-" + i, freeLoopbackPort());
    }
    for (Map.Entry<String, String> e : extra.entrySet()) conf.set(e.getKey(), e.getValue());

    MiniOzoneCluster cluster;
    try {
      if (secureDir != null) {
        // StorageContainerManager#scmInit (the root CA, the SCM's own certificate) runs only on
        // the HA builder's path with an SCM service id; one SCM is enough for it.
        MiniOzoneHAClusterImpl.Builder builder = MiniOzoneCluster.newHABuilder(conf);
        builder.setSCMServiceId("scmservice").setNumOfStorageContainerManagers(1);
        if (omHa > 0) builder.setOMServiceId(omServiceId).setNumOfOzoneManagers(omHa);
        builder.setNumDatanodes(datanodes);
        String datanodeHost = conf.get("hdds.datanode.hostname");
        if (datanodeHost != null) {
          // MiniOzoneCluster's datanode factory names every datanode 127.0.0.1; with TLS they take
          // the name their certificates carry instead (see secureOzoneConfiguration).
          MiniOzoneCluster.DatanodeFactory uniform = UniformDatanodesFactory.newBuilder().build();
          builder.setDatanodeFactory(
              base -> {
                OzoneConfiguration node = uniform.apply(base);
                node.set("hdds.datanode.hostname", datanodeHost);
                return node;
              });
        }
        cluster = builder.build();
      } else {
        cluster =
            omHa > 0
                ? MiniOzoneCluster.newHABuilder(conf)
                    .setOMServiceId(omServiceId)
                    .setNumOfOzoneManagers(omHa)
                    .setNumDatanodes(datanodes)
                    .build()
                : MiniOzoneCluster.newBuilder(conf).setNumDatanodes(datanodes).build();
      }
    } catch (Throwable t) {
      fail("MiniOzoneCluster did not build: " + describe(t));
      return;
    }
    final MiniOzoneCluster running = cluster;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(running), "fastpath-stop"));
    try {
      cluster.waitForClusterToBeReady();
      HddsProtos.ReplicationFactor factor =
          datanodes >= 3 ? HddsProtos.ReplicationFactor.THREE : HddsProtos.ReplicationFactor.ONE;
      if (cluster instanceof MiniOzoneHAClusterImpl ha) {
        // MiniOzoneClusterImpl#waitForPipelineTobeReady reads a field only the one-SCM builder
        // sets; the HA cluster's SCM is asked directly.
        var pipelines = ha.getStorageContainerManager().getPipelineManager();
        var replication = RatisReplicationConfig.getInstance(factor);
        GenericTestUtils.waitFor(
            () -> !pipelines.getPipelines(replication, Pipeline.PipelineState.OPEN).isEmpty(),
            500,
            120_000);
        if (omHa > 0) ha.waitForLeaderOM();
      } else {
        cluster.waitForPipelineTobeReady(factor, 120_000);
      }
    } catch (Throwable t) {
      stop(cluster);
      fail("MiniOzoneCluster did not become ready: " + describe(t));
      return;
    }
    ClientUser user;
    ObjectNode security = null;
    try {
      if (secureDir != null) {
        user =
            new ClientUser(
                UserGroupInformation.loginUserFromKeytabAndReturnUGI(clientPrincipal, clientKeytab));
        security = writeClientFiles(cluster, Path.of(secureDir));
        security.put("clientUser", user.ugi().getUserName());
        security.put("serviceUser", UserGroupInformation.getLoginUser().getUserName());
      } else {
        user = new ClientUser(null);
      }
    } catch (Throwable t) {
      stop(cluster);
      fail("the secure cluster's client set-up failed: " + describe(t));
      return;
    }
    ObjectNode readyLine = ready(cluster, omHa > 0);
    if (security != null) readyLine.set("security", security);
    emit(readyLine);

    KeyWriter writer =
        new KeyWriter(
            cluster.getConf(),
            cluster instanceof MiniOzoneHAClusterImpl ha
                ? ha.getOzoneManagersList()
                : List.of(cluster.getOzoneManager()));
    KeyReader reader = new KeyReader(cluster.getConf());
    // Datanodes stopped by a request: their services stay listed in the cluster, their stores closed.
    Set<String> stoppedDatanodes = ConcurrentHashMap.newKeySet();
    S3GatewayRunner gateway = new S3GatewayRunner(cluster.getConf());
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isBlank()) continue;
      JsonNode request;
      try {
        request = JSON.readTree(line);
      } catch (Exception e) {
        emit(error(-1, "request is not JSON: " + describe(e)));
        continue;
      }
      long id = request.path("id").asLong(-1);
      String op = request.path("op").asText("");
      if (op.equals("stop")) break;
      try {
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("id", id);
        switch (op) {
          case "writeKeys" -> {
            answer.put("event", "written");
            answer.set("keys", user.run(() -> writer.write(request.path("keys"))));
          }
          case "stopDatanode" -> {
            DatanodeDetails details = datanode(cluster, request.path("uuid").asText());
            cluster.shutdownHddsDatanode(details);
            stoppedDatanodes.add(details.getUuidString());
            // A stopped datanode is one whose standalone port refuses connections: the listener
            // may close after the shutdown call returns.
            awaitPortClosed(details.getStandalonePort().getValue(), 30_000);
            answer.put("event", "done");
          }
          case "restartDatanode" -> {
            // Same ports and directories. MiniOzoneCluster's own wait would first wait for the
            // SCM to mark the stopped node stale (minutes); waiting for the restarted node's
            // standalone gRPC port is what a reader needs.
            DatanodeDetails details = datanode(cluster, request.path("uuid").asText());
            cluster.restartHddsDatanode(details, false);
            stoppedDatanodes.remove(details.getUuidString());
            awaitPort(details.getStandalonePort().getValue(), 120_000);
            answer.put("event", "done");
          }
          case "omLeader" -> {
            answer.put("event", "omLeader");
            answer.put("nodeId", ha(cluster).waitForLeaderOM().getOMNodeId());
          }
          case "transferOmLeader" -> {
            // As `ozone admin om transfer`: the leader hands over to the named node.
            MiniOzoneHAClusterImpl ha = ha(cluster);
            String target = request.path("nodeId").asText();
            ha.getOzoneManager(target);
            ha.waitForLeaderOM().transferLeadership(target);
            GenericTestUtils.waitFor(
                () -> {
                  OzoneManager leader = ha.getOMLeader();
                  return leader != null && leader.getOMNodeId().equals(target) && leader.isLeaderReady();
                },
                100,
                60_000);
            answer.put("event", "done");
          }
          case "stopOm" -> {
            MiniOzoneHAClusterImpl ha = ha(cluster);
            String nodeId = request.path("nodeId").asText();
            OzoneManager om = ha.getOzoneManager(nodeId);
            ha.shutdownOzoneManager(om);
            awaitPortClosed(omGrpcPort(cluster, nodeId), 30_000);
            answer.put("event", "done");
          }
          case "restartOm" -> {
            MiniOzoneHAClusterImpl ha = ha(cluster);
            String nodeId = request.path("nodeId").asText();
            ha.restartOzoneManager(ha.getOzoneManager(nodeId), false);
            awaitPort(omGrpcPort(cluster, nodeId), 120_000);
            answer.put("event", "done");
          }
          case "lookupKey" -> {
            answer.put("event", "key");
            KeyLookup.lookup(
                cluster instanceof MiniOzoneHAClusterImpl ha
                    ? ha.waitForLeaderOM()
                    : cluster.getOzoneManager(),
                cluster,
                stoppedDatanodes,
                request.path("volume").asText(),
                request.path("bucket").asText(),
                request.path("key").asText(),
                answer);
          }
          case "readKey" -> {
            answer.put("event", "read");
            user.run(
                () -> {
                  reader.read(
                      request.path("volume").asText(),
                      request.path("bucket").asText(),
                      request.path("key").asText(),
                      answer);
                  return null;
                });
          }
          case "listKeys" -> {
            answer.put("event", "keys");
            user.run(
                () -> {
                  reader.list(
                      request.path("volume").asText(),
                      request.path("bucket").asText(),
                      request.path("prefix").asText(""),
                      answer);
                  return null;
                });
          }
          case "inspectKey" -> {
            answer.put("event", "inspected");
            user.run(
                () -> {
                  reader.inspect(
                      request.path("volume").asText(),
                      request.path("bucket").asText(),
                      request.path("key").asText(),
                      answer);
                  return null;
                });
          }
          case "getDelegationToken" -> {
            if (user.ugi() == null) throw new IllegalStateException("the cluster is not secure");
            answer.put("event", "token");
            user.run(
                () -> {
                  reader.fetchDelegationToken(
                      request.path("renewer").asText(""),
                      Path.of(request.path("file").asText()),
                      answer);
                  return null;
                });
          }
          case "startS3Gateway" -> {
            s3Gateway = gateway;
            answer.put("event", "s3Gateway");
            gateway.start(answer);
          }
          case "linkS3Bucket" -> {
            answer.put("event", "linked");
            gateway.link(
                request.path("name").asText(),
                request.path("volume").asText(),
                request.path("bucket").asText(),
                answer);
          }
          case "clientCounters" -> {
            answer.put("event", "clientCounters");
            KeyReader.clientCounters(answer);
          }
          case "datanodeCounters" -> {
            answer.put("event", "counters");
            answer.set("datanodes", ContainerCounters.read(cluster));
          }
          default -> throw new IllegalArgumentException("unknown op \"" + op + "\"");
        }
        emit(answer);
      } catch (Throwable t) {
        emit(error(id, describe(t)));
      }
    }
    stop(cluster);
    emit(JsonNodeFactory.instance.objectNode().put("event", "stopped"));
    System.exit(0);
  }

  /** Runs an op of Ozone's Java client as the client user (--secure), else as the JVM's user. */
  private record ClientUser(UserGroupInformation ugi) {
    <T> T run(PrivilegedExceptionAction<T> action) throws Exception {
      if (ugi == null) return action.run();
      try {
        return ugi.doAs(action);
      } catch (java.lang.reflect.UndeclaredThrowableException e) {
        throw e.getCause() instanceof Exception cause ? cause : e;
      }
    }
  }

  /**
   * Writes what a client process needs into {@code dir}: the cluster's configuration (with the
   * principals, protection and TLS setting a client reads) and the CA certificates the OM hands
   * its clients in the service list, the ones a client trusts for the datanodes' TLS.
   */
  private static ObjectNode writeClientFiles(MiniOzoneCluster cluster, Path dir) throws Exception {
    Files.createDirectories(dir);
    Path site = dir.resolve("ozone-site.xml");
    try (var out = Files.newOutputStream(site)) {
      cluster.getConf().writeXml(out);
    }
    OzoneManager om =
        cluster instanceof MiniOzoneHAClusterImpl ha && ha.getOzoneManagersList().size() > 1
            ? ha.waitForLeaderOM()
            : cluster.getOzoneManager();
    List<String> pems = om.getServiceInfo().getCaCertPemList();
    Path ca = dir.resolve("ca.pem");
    Files.writeString(ca, String.join("", pems), StandardCharsets.US_ASCII);
    ObjectNode security = JsonNodeFactory.instance.objectNode();
    security.put("clientConfigPath", site.toString());
    security.put("caCertificatePath", ca.toString());
    security.put("caCertificates", pems.size());
    return security;
  }

  private static ObjectNode ready(MiniOzoneCluster cluster, boolean omHa) {
    OzoneConfiguration conf = cluster.getConf();
    OzoneManager om = cluster.getOzoneManager();
    ObjectNode ready = JsonNodeFactory.instance.objectNode();
    ready.put("event", "ready");
    ready.put("ozoneVersion", om.getVersion());
    ready.put("hadoopVersion", VersionInfo.getVersion());
    ready.put("pid", ProcessHandle.current().pid());
    ready.put("startMs", ManagementFactory.getRuntimeMXBean().getUptime());
    ready.put("clusterId", cluster.getClusterId());
    ready.put("baseDir", cluster.getBaseDir());
    ready.put("omGrpcAddress", "127.0.0.1:" + conf.getInt("ozone.om.grpc.port", -1));
    InetSocketAddress omRpc = om.getOmRpcServerAddr();
    ready.put("omRpcAddress", omRpc.getHostString() + ":" + omRpc.getPort());
    String scmClient = conf.get("ozone.scm.client.address");
    if (scmClient == null) {
      // With an SCM service id (the secure cluster) the address is under the node's own key.
      InetSocketAddress scm = cluster.getStorageContainerManager().getClientRpcAddress();
      scmClient = scm.getHostString() + ":" + scm.getPort();
    }
    ready.put("scmClientAddress", scmClient);
    if (omHa && cluster instanceof MiniOzoneHAClusterImpl ha) {
      ready.put("omServiceId", conf.get("ozone.om.service.ids"));
      ArrayNode oms = ready.putArray("oms");
      for (OzoneManager node : ha.getOzoneManagersList()) {
        ObjectNode entry = oms.addObject();
        entry.put("nodeId", node.getOMNodeId());
        InetSocketAddress rpc = node.getOmRpcServerAddr();
        entry.put("rpcAddress", rpc.getHostString() + ":" + rpc.getPort());
        entry.put("grpcAddress", "127.0.0.1:" + omGrpcPort(cluster, node.getOMNodeId()));
      }
      ready.put("omLeader", ha.getOMLeader() == null ? null : ha.getOMLeader().getOMNodeId());
    }
    ready.put("omDbDir", conf.get("ozone.om.db.dirs"));
    ArrayNode nodes = ready.putArray("datanodes");
    for (HddsDatanodeService datanode : cluster.getHddsDatanodes()) {
      DatanodeDetails details = datanode.getDatanodeDetails();
      ObjectNode node = nodes.addObject();
      node.put("uuid", details.getUuidString());
      node.put("hostName", details.getHostName());
      node.put("ipAddress", details.getIpAddress());
      ObjectNode ports = node.putObject("ports");
      for (DatanodeDetails.Port port : details.getPorts()) {
        ports.put(port.getName().name(), port.getValue());
      }
      ArrayNode dataDirs = node.putArray("dataDirs");
      for (String dir : datanode.getConf().getTrimmedStrings("hdds.datanode.dir")) {
        dataDirs.add(dir);
      }
      node.put("metadataDir", datanode.getConf().get("ozone.metadata.dirs"));
      node.put("ratisDir", datanode.getConf().get("hdds.container.ratis.datanode.storage.dir"));
    }
    return ready;
  }

  private static MiniOzoneHAClusterImpl ha(MiniOzoneCluster cluster) {
    if (cluster instanceof MiniOzoneHAClusterImpl ha) return ha;
    throw new IllegalArgumentException("the cluster runs one OM (start it with --om-ha)");
  }

  /** The gRPC port of an OM node: its own key, else the cluster's. */
  private static int omGrpcPort(MiniOzoneCluster cluster, String nodeId) {
    OzoneConfiguration conf = cluster.getConf();
    String serviceId = conf.get("ozone.om.service.ids");
    return conf.getInt(
        "ozone.om.grpc.port." + serviceId + "." + nodeId, conf.getInt("ozone.om.grpc.port", -1));
  }

  private static DatanodeDetails datanode(MiniOzoneCluster cluster, String uuid) {
    for (HddsDatanodeService datanode : cluster.getHddsDatanodes()) {
      DatanodeDetails details = datanode.getDatanodeDetails();
      if (details.getUuidString().equals(uuid)) return details;
    }
    throw new IllegalArgumentException("no datanode " + uuid);
  }

  private static void stop(MiniOzoneCluster cluster) {
    if (!stopped.compareAndSet(false, true)) return;
    S3GatewayRunner gateway = s3Gateway;
    if (gateway != null) gateway.stop();
    try {
      cluster.shutdown();
    } catch (Throwable t) {
      System.err.println("fastpath: shutdown failed: " + describe(t));
    }
  }

  /**
   * MiniOzoneCluster takes its ports from a counter that starts at 15000 in every JVM and checks
   * nothing, so two clusters on one machine (or anything else on 15000+) collide. Start the
   * counter at a random base in its range whose next ports are all free now; a port taken between
   * this check and the bind fails the start, and the caller starts a fresh JVM.
   */
  private static void startPortsInFreeRange(int datanodes) {
    int needed = 32 + 12 * datanodes;
    Random random = new Random();
    for (int attempt = 0; attempt < 100; attempt++) {
      int min = GenericTestUtils.PortAllocator.MIN_PORT;
      int base = min + random.nextInt(GenericTestUtils.PortAllocator.MAX_PORT - min - needed);
      if (allFree(base, needed)) {
        GenericTestUtils.PortAllocator.NEXT_PORT.set(base);
        return;
      }
    }
  }

  private static boolean allFree(int base, int count) {
    for (int port = base; port < base + count; port++) {
      // The wildcard address: several of Ozone's servers bind it.
      try (ServerSocket socket = new ServerSocket(port)) {
        socket.setReuseAddress(false);
      } catch (Exception e) {
        return false;
      }
    }
    return true;
  }

  private static void awaitPort(int port, long boundMs) throws Exception {
    long deadline = System.currentTimeMillis() + boundMs;
    while (true) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
        return;
      } catch (IOException e) {
        if (System.currentTimeMillis() > deadline) {
          throw new TimeoutException("port " + port + " did not open in " + boundMs + " ms");
        }
        Thread.sleep(200);
      }
    }
  }

  private static void awaitPortClosed(int port, long boundMs) throws Exception {
    long deadline = System.currentTimeMillis() + boundMs;
    while (true) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
      } catch (IOException e) {
        return; // refused (on loopback a closed port answers at once)
      }
      if (System.currentTimeMillis() > deadline) {
        throw new TimeoutException(
            "port " + port + " still accepts connections " + boundMs + " ms after the stop");
      }
      Thread.sleep(200);
    }
  }

  private static int freeLoopbackPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static ObjectNode error(long id, String message) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("id", id);
    node.put("event", "error");
    node.put("message", message);
    return node;
  }

  private static void fail(String message) {
    emit(JsonNodeFactory.instance.objectNode().put("event", "failed").put("message", message));
    System.exit(1);
  }

  private static synchronized void emit(JsonNode node) {
    protocol.println(node.toString());
  }

  private static String describe(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (sb.length() > 0) sb.append(" <- ");
      sb.append(c.getClass().getName()).append(": ").append(c.getMessage());
    }
    return sb.toString();
  }
}
