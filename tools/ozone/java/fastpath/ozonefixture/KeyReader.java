package fastpath.ozonefixture;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.ozone.client.OzoneClient;
import org.apache.hadoop.ozone.client.OzoneClientFactory;
import org.apache.hadoop.ozone.client.OzoneKey;

/**
 * Reads a whole key with Ozone's own Java client, checksums verified (the client's
 * {@code ozone.client.verify.checksum} forced on), so that a test can prove that what another
 * client wrote is readable by Ozone itself: the answer is the byte count and the SHA-256 of the
 * bytes read. A checksum that does not match fails the read, and the op with it.
 */
final class KeyReader {
  private static final int BUFFER_BYTES = 1 << 20;
  private final OzoneConfiguration conf;

  KeyReader(OzoneConfiguration clusterConf) {
    this.conf = new OzoneConfiguration(clusterConf);
    this.conf.setBoolean("ozone.client.verify.checksum", true);
  }

  /** Lists the keys under {@code prefix} as Ozone's Java client sees them: name and size each. */
  void list(String volume, String bucket, String prefix, ObjectNode answer) throws IOException {
    ArrayNode keys = answer.putArray("keys");
    try (OzoneClient client = OzoneClientFactory.getRpcClient(conf)) {
      var it = client.getObjectStore().getVolume(volume).getBucket(bucket).listKeys(prefix);
      while (it.hasNext()) {
        OzoneKey key = it.next();
        ObjectNode k = keys.addObject();
        k.put("name", key.getName());
        k.put("size", key.getDataSize());
      }
    }
  }

  void read(String volume, String bucket, String key, ObjectNode answer) throws IOException {
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    long total = 0;
    // A client per read: nothing cached from an earlier read of the same key can answer for it.
    try (OzoneClient client = OzoneClientFactory.getRpcClient(conf);
        InputStream in =
            client.getObjectStore().getVolume(volume).getBucket(bucket).readKey(key)) {
      byte[] buffer = new byte[BUFFER_BYTES];
      for (int n; (n = in.read(buffer)) > 0; ) {
        sha256.update(buffer, 0, n);
        total += n;
      }
    }
    answer.put("bytesRead", total);
    StringBuilder hex = new StringBuilder(64);
    for (byte b : sha256.digest()) hex.append(String.format("%02x", b));
    answer.put("sha256", hex.toString());
    answer.put("verifyChecksum", true);
  }
}
