package fastpath.ozonefixture;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * Ozone's Java client in a process of its own, with no credentials but what its environment gives
 * it, reading one key whole (checksums verified, as {@link KeyReader} does):
 *
 * <ul>
 *   <li>{@code token}: the cluster's configuration as is (Kerberos), and a login user that has no
 *       Kerberos ticket and holds only the tokens of the file that {@code
 *       HADOOP_TOKEN_FILE_LOCATION} names (Hadoop's UGI reads it at log-in), so the OM connection
 *       can only authenticate with an OM delegation token.
 *   <li>{@code simple}: the same configuration with {@code hadoop.security.authentication=simple},
 *       a client that does not authenticate (its user is {@code HADOOP_USER_NAME}).
 * </ul>
 *
 * <p>Arguments: {@code <token|simple> <ozone-site.xml> <volume> <bucket> <key>}. stdout carries
 * one JSON line: {"event":"read","bytesRead":N,"sha256":"..","user":"..","authMethod":".."} or
 * {"event":"error","message":"<exception chain>"}. Exit 0 read, 1 refused or failed, 2 wrong
 * arguments.
 */
public final class ClientProcess {
  private ClientProcess() {}

  public static void main(String[] args) {
    PrintStream protocol =
        new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    if (args.length != 5 || !(args[0].equals("token") || args[0].equals("simple"))) {
      System.err.println(
          "usage: ClientProcess <token|simple> <ozone-site.xml> <volume> <bucket> <key>");
      System.exit(2);
    }
    ObjectNode answer = JsonNodeFactory.instance.objectNode();
    int code = 0;
    try {
      OzoneConfiguration conf = new OzoneConfiguration();
      conf.addResource(new Path(args[1]));
      if (args[0].equals("simple")) conf.set("hadoop.security.authentication", "simple");
      // A refused client must end within a bound: the OM's refusal is final, one try is enough.
      conf.setInt("ozone.client.failover.max.attempts", 1);
      conf.setLong("ozone.client.wait.between.retries.millis", 100);
      // UGI reads its settings once, from a plain Configuration unless it is given this one.
      UserGroupInformation.setConfiguration(conf);
      UserGroupInformation user = UserGroupInformation.getCurrentUser();
      answer.put("user", user.getUserName());
      answer.put("authMethod", user.getAuthenticationMethod().name());
      answer.put("hasKerberosCredentials", user.hasKerberosCredentials());
      answer.put("tokens", user.getTokens().size());
      answer.put("event", "read");
      new KeyReader(conf).read(args[2], args[3], args[4], answer);
    } catch (Throwable t) {
      answer.put("event", "error");
      StringBuilder sb = new StringBuilder();
      for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
        if (sb.length() > 0) sb.append(" <- ");
        sb.append(c.getClass().getName()).append(": ").append(c.getMessage());
      }
      answer.put("message", sb.toString());
      t.printStackTrace();
      code = 1;
    }
    protocol.println(answer.toString());
    // The client leaves non-daemon threads behind after close, as ColdRead notes.
    System.exit(code);
  }
}
