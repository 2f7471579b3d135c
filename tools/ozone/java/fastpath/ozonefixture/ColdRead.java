package fastpath.ozonefixture;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.ozone.client.OzoneBucket;
import org.apache.hadoop.ozone.client.OzoneClient;
import org.apache.hadoop.ozone.client.OzoneClientFactory;
import org.apache.hadoop.ozone.client.io.OzoneInputStream;

/**
 * One cold Ozone Java client, the whole life of a fresh JVM: create the client (Hadoop RPC to the
 * OM), look the key up, read its first bytes from a datanode, close. It is the Java anchor of the
 * cold-client benchmark, so it does what the Node probe does and prints one JSON line of phase
 * times in ms; the benchmark times the whole process from spawn to exit itself.
 *
 * <p>Arguments: {@code <om host:port> <volume> <bucket> <key> <bytes>}. Exit 0 on success, 1 on
 * any failure (with the cause on stderr), 2 for wrong arguments.
 */
public final class ColdRead {
  private ColdRead() {}

  public static void main(String[] args) {
    if (args.length != 5) {
      System.err.println("usage: ColdRead <om host:port> <volume> <bucket> <key> <bytes>");
      System.exit(2);
    }
    try {
      System.out.println(run(args[0], args[1], args[2], args[3], Integer.parseInt(args[4])));
      // The client leaves non-daemon threads (RPC and datanode client pools) behind after close;
      // a short-lived client process such as Ozone's own shell ends with an explicit exit.
      System.exit(0);
    } catch (Exception e) {
      e.printStackTrace();
      System.exit(1);
    }
  }

  private static String run(String om, String volume, String bucket, String key, int bytes)
      throws IOException, NoSuchAlgorithmException {
    long start = System.nanoTime();
    OzoneConfiguration conf = new OzoneConfiguration();
    conf.set("ozone.om.address", om);
    long created;
    long looked;
    long read;
    int got = 0;
    byte[] buffer = new byte[bytes];
    try (OzoneClient client = OzoneClientFactory.getRpcClient(conf)) {
      created = System.nanoTime();
      OzoneBucket b = client.getObjectStore().getVolume(volume).getBucket(bucket);
      b.getKey(key);
      looked = System.nanoTime();
      try (OzoneInputStream in = b.readKey(key)) {
        while (got < bytes) {
          int n = in.read(buffer, got, bytes - got);
          if (n < 0) break;
          got += n;
        }
      }
      read = System.nanoTime();
    }
    long closed = System.nanoTime();
    // The digest lets the caller check the bytes; it is taken after the clock stopped.
    MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
    sha256.update(buffer, 0, got);
    return String.format(
        Locale.ROOT,
        "{\"createMs\":%.3f,\"metadataMs\":%.3f,\"readMs\":%.3f,\"closeMs\":%.3f,"
            + "\"bytesRead\":%d,\"sha256\":\"%s\"}",
        (created - start) / 1e6,
        (looked - created) / 1e6,
        (read - looked) / 1e6,
        (closed - read) / 1e6,
        got,
        HexFormat.of().formatHex(sha256.digest()));
  }
}
