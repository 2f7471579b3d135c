package dev.fastpath.hadoop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.ProtocolInfo;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.ipc.RetriableException;
import org.apache.hadoop.ipc.RpcServerException;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.ipc.TestRpcBase;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.ipc.protobuf.TestProtos.AddRequestProto;
import org.apache.hadoop.ipc.protobuf.TestProtos.AddRequestProto2;
import org.apache.hadoop.ipc.protobuf.TestProtos.AddResponseProto;
import org.apache.hadoop.ipc.protobuf.TestProtos.AuthMethodResponseProto;
import org.apache.hadoop.ipc.protobuf.TestProtos.EchoRequestProto;
import org.apache.hadoop.ipc.protobuf.TestProtos.EchoRequestProto2;
import org.apache.hadoop.ipc.protobuf.TestProtos.EchoResponseProto;
import org.apache.hadoop.ipc.protobuf.TestProtos.EchoResponseProto2;
import org.apache.hadoop.ipc.protobuf.TestProtos.EmptyRequestProto;
import org.apache.hadoop.ipc.protobuf.TestProtos.EmptyResponseProto;
import org.apache.hadoop.ipc.protobuf.TestProtos.ExchangeRequestProto;
import org.apache.hadoop.ipc.protobuf.TestProtos.ExchangeResponseProto;
import org.apache.hadoop.ipc.protobuf.TestProtos.SleepRequestProto;
import org.apache.hadoop.ipc.protobuf.TestProtos.SlowPingRequestProto;
import org.apache.hadoop.ipc.protobuf.TestProtos.UserResponseProto;
import org.apache.hadoop.ipc.protobuf.TestRpcServiceProtos.TestProtobufRpcProto;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.thirdparty.protobuf.BlockingService;
import org.apache.hadoop.thirdparty.protobuf.RpcController;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;

/**
 * Runs Apache Hadoop's own IPC server (RPC.Server, ProtobufRpcEngine2, simple auth) on
 * 127.0.0.1:0 serving Hadoop's IPC test service (TestProtobufRpcProto from hadoop-common's test
 * jar), writes its port to the file named by the first argument, and serves until killed.
 *
 * The methods answer as fastpath's Node test server answers them, so that one contract suite runs
 * against both: echo2(["call-context"]) answers the caller's user, client id (hex), call id and
 * retry count as the server saw them; error throws RpcServerException (as Hadoop's TestRpcBase);
 * error2 throws RetriableException (Hadoop's TestRpcBase throws URISyntaxException there).
 *
 * With the arguments {@code token <hadoop.rpc.protection>} the server also offers TOKEN
 * (DIGEST-MD5) with Hadoop's own test secret manager (TestRpcBase.TestTokenSecretManager) at that
 * protection, and writes a token it issued for the user "alice" (its URL string) to the port file's
 * name with ".token" appended, before the port file.
 *
 * With the arguments {@code kerberos <hadoop.rpc.protection> <principal> <keytab>} the server
 * authenticates with Kerberos instead of SIMPLE (hadoop.security.authentication=kerberos): it logs
 * in from the keytab as the principal (a service principal such as {@code hrpc/localhost@REALM},
 * whose first part and host part become the SASL protocol and server id it offers), and offers
 * KERBEROS (GSSAPI) at that protection. The JVM finds the realm through java.security.krb5.conf.
 */
public final class RpcPeerDriver {
  private RpcPeerDriver() {}

  /** The protocol name and version fastpath's tests call (Hadoop's TestRpcBase.TestRpcService). */
  @ProtocolInfo(protocolName = "org.apache.hadoop.ipc.TestRpcBase$TestRpcService", protocolVersion = 1)
  public interface TestRpcService extends TestProtobufRpcProto.BlockingInterface {}

  static final class Service implements TestRpcService {
    private static final EmptyResponseProto EMPTY = EmptyResponseProto.getDefaultInstance();

    @Override
    public EmptyResponseProto ping(RpcController c, EmptyRequestProto r) {
      return EMPTY;
    }

    @Override
    public EchoResponseProto echo(RpcController c, EchoRequestProto r) {
      return EchoResponseProto.newBuilder().setMessage(r.getMessage()).build();
    }

    @Override
    public EmptyResponseProto error(RpcController c, EmptyRequestProto r) throws ServiceException {
      throw new ServiceException("error", new RpcServerException("error"));
    }

    @Override
    public EmptyResponseProto error2(RpcController c, EmptyRequestProto r) throws ServiceException {
      throw new ServiceException("error", new RetriableException("server too busy, try again"));
    }

    @Override
    public EmptyResponseProto slowPing(RpcController c, SlowPingRequestProto r) throws ServiceException {
      if (r.getShouldSlow()) pause(1000);
      return EMPTY;
    }

    @Override
    public EchoResponseProto2 echo2(RpcController c, EchoRequestProto2 r) {
      if (r.getMessageCount() == 1 && "call-context".equals(r.getMessage(0))) {
        UserGroupInformation user = Server.getRemoteUser();
        return EchoResponseProto2.newBuilder()
            .addAllMessage(
                Arrays.asList(
                    user == null ? "" : user.getUserName(),
                    hex(Server.getClientId()),
                    String.valueOf(Server.getCallId()),
                    String.valueOf(Server.getCallRetryCount())))
            .build();
      }
      return EchoResponseProto2.newBuilder().addAllMessage(r.getMessageList()).build();
    }

    @Override
    public AddResponseProto add(RpcController c, AddRequestProto r) {
      return AddResponseProto.newBuilder().setResult(r.getParam1() + r.getParam2()).build();
    }

    @Override
    public AddResponseProto add2(RpcController c, AddRequestProto2 r) {
      int sum = 0;
      for (int p : r.getParamsList()) sum += p;
      return AddResponseProto.newBuilder().setResult(sum).build();
    }

    @Override
    public EmptyResponseProto testServerGet(RpcController c, EmptyRequestProto r) {
      return EMPTY;
    }

    @Override
    public ExchangeResponseProto exchange(RpcController c, ExchangeRequestProto r) {
      return ExchangeResponseProto.newBuilder().addAllValues(r.getValuesList()).build();
    }

    @Override
    public EmptyResponseProto sleep(RpcController c, SleepRequestProto r) throws ServiceException {
      pause(r.getMilliSeconds());
      return EMPTY;
    }

    @Override
    public EmptyResponseProto lockAndSleep(RpcController c, SleepRequestProto r) throws ServiceException {
      return sleep(c, r);
    }

    @Override
    public AuthMethodResponseProto getAuthMethod(RpcController c, EmptyRequestProto r) {
      UserGroupInformation user = Server.getRemoteUser();
      UserGroupInformation.AuthenticationMethod method =
          user == null ? UserGroupInformation.AuthenticationMethod.SIMPLE : user.getAuthenticationMethod();
      return AuthMethodResponseProto.newBuilder().setCode(method.ordinal()).setMechanismName(method.name()).build();
    }

    @Override
    public UserResponseProto getAuthUser(RpcController c, EmptyRequestProto r) {
      UserGroupInformation user = Server.getRemoteUser();
      return UserResponseProto.newBuilder().setUser(user == null ? "" : user.getUserName()).build();
    }

    @Override
    public EchoResponseProto echoPostponed(RpcController c, EchoRequestProto r) {
      return echo(c, r);
    }

    @Override
    public EmptyResponseProto sendPostponed(RpcController c, EmptyRequestProto r) {
      return EMPTY;
    }

    @Override
    public UserResponseProto getCurrentUser(RpcController c, EmptyRequestProto r) throws ServiceException {
      try {
        return UserResponseProto.newBuilder().setUser(UserGroupInformation.getCurrentUser().getUserName()).build();
      } catch (IOException e) {
        throw new ServiceException(e);
      }
    }

    @Override
    public UserResponseProto getServerRemoteUser(RpcController c, EmptyRequestProto r) {
      return getAuthUser(c, r);
    }

    private static void pause(int ms) throws ServiceException {
      try {
        Thread.sleep(ms);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ServiceException(e);
      }
    }

    private static String hex(byte[] bytes) {
      StringBuilder s = new StringBuilder();
      for (byte b : bytes) s.append(String.format("%02x", b & 0xff));
      return s.toString();
    }
  }

  public static void main(String[] args) throws Exception {
    boolean token = args.length == 3 && "token".equals(args[1]);
    boolean kerberos = args.length == 5 && "kerberos".equals(args[1]);
    if (args.length != 1 && !token && !kerberos) {
      System.err.println(
          "usage: RpcPeerDriver <port file> [token <hadoop.rpc.protection>"
              + " | kerberos <hadoop.rpc.protection> <principal> <keytab>]");
      System.exit(2);
    }
    Configuration conf = new Configuration();
    conf.set("hadoop.security.authentication", kerberos ? "kerberos" : "simple");
    TestRpcBase.TestTokenSecretManager secrets = token ? new TestRpcBase.TestTokenSecretManager() : null;
    if (token || kerberos) conf.set("hadoop.rpc.protection", args[2]);
    if (kerberos) {
      UserGroupInformation.setConfiguration(conf);
      UserGroupInformation.loginUserFromKeytab(args[3], args[4]);
    }
    RPC.setProtocolEngine(conf, TestRpcService.class, ProtobufRpcEngine2.class);
    BlockingService service = TestProtobufRpcProto.newReflectiveBlockingService(new Service());
    RPC.Server server =
        new RPC.Builder(conf)
            .setProtocol(TestRpcService.class)
            .setInstance(service)
            .setBindAddress("127.0.0.1")
            .setPort(0)
            .setNumHandlers(8)
            .setSecretManager(secrets)
            .build();
    server.start();
    Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
    if (secrets != null) {
      Token<TestRpcBase.TestTokenIdentifier> issued =
          new Token<>(new TestRpcBase.TestTokenIdentifier(new Text("alice")), secrets);
      Files.write(Paths.get(args[0] + ".token"), issued.encodeToUrlString().getBytes(StandardCharsets.UTF_8));
    }
    Path portFile = Paths.get(args[0]);
    Path partial = Paths.get(args[0] + ".partial");
    Files.write(partial, String.valueOf(server.getListenerAddress().getPort()).getBytes(StandardCharsets.UTF_8));
    Files.move(partial, portFile, StandardCopyOption.ATOMIC_MOVE);
    System.out.println("serving on port " + server.getListenerAddress().getPort());
    server.join();
  }
}
