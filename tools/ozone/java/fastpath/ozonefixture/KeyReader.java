package fastpath.ozonefixture;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.hdds.scm.XceiverClientManager;
import org.apache.hadoop.hdds.scm.XceiverClientMetrics;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.hdds.security.token.OzoneBlockTokenIdentifier;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.ozone.client.OzoneClient;
import org.apache.hadoop.ozone.client.OzoneClientFactory;
import org.apache.hadoop.ozone.client.OzoneKey;
import org.apache.hadoop.ozone.client.rpc.RpcClient;
import org.apache.hadoop.ozone.om.helpers.OmKeyArgs;
import org.apache.hadoop.ozone.om.helpers.OmKeyInfo;
import org.apache.hadoop.ozone.om.helpers.OmKeyLocationInfo;
import org.apache.hadoop.ozone.security.OzoneTokenIdentifier;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;

/**
 * Reads a whole key with Ozone's own Java client, checksums verified (the client's
 * {@code ozone.client.verify.checksum} forced on), so that a test can prove that what another
 * client wrote is readable by Ozone itself: the answer is the byte count and the SHA-256 of the
 * bytes read. A checksum that does not match fails the read, and the op with it.
 *
 * <p>On a secure cluster every call runs as the caller's UGI (the launcher's client user, logged
 * in from its keytab; or a process's own login), which the client captures when it is created.
 */
final class KeyReader {
  private static final int BUFFER_BYTES = 1 << 20;
  /**
   * The client's own counts of EC block groups it read through its reconstruction reader
   * (ECBlockInputStreamProxy counts one each time it builds one, at the start or failing over to
   * it) and of those that failed. XceiverClientMetrics is one per JVM and has no getters for
   * them, hence the reflection; the datanodes' own reconstruction in this JVM does not go through
   * that proxy.
   */
  private static final Field EC_RECONSTRUCTIONS = metricsField("ecReconstructionTotal");
  private static final Field EC_RECONSTRUCTION_FAILURES = metricsField("ecReconstructionFailsTotal");
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

  /** The Java client's EC reconstruction counters of this JVM, cumulative. */
  static void clientCounters(ObjectNode answer) throws IllegalAccessException {
    XceiverClientMetrics metrics = XceiverClientManager.getXceiverClientMetrics();
    answer.put("ecReconstructionReads", ((MutableCounterLong) EC_RECONSTRUCTIONS.get(metrics)).value());
    answer.put(
        "ecReconstructionFailures",
        ((MutableCounterLong) EC_RECONSTRUCTION_FAILURES.get(metrics)).value());
  }

  private static Field metricsField(String name) {
    try {
      Field f = XceiverClientMetrics.class.getDeclaredField(name);
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("XceiverClientMetrics has no field " + name + " in this Ozone", e);
    }
  }

  /**
   * The key as the OM answers a client's lookup over its RPC (what a reader gets before it goes to
   * a datanode): the owner the OM recorded, the user the client runs as, and each block's token,
   * decoded. The token's password is never put in the answer, only its length.
   */
  void inspect(String volume, String bucket, String key, ObjectNode answer) throws IOException {
    try (OzoneClient client = OzoneClientFactory.getRpcClient(conf)) {
      OmKeyArgs args =
          new OmKeyArgs.Builder()
              .setVolumeName(volume)
              .setBucketName(bucket)
              .setKeyName(key)
              .build();
      OmKeyInfo info = ((RpcClient) client.getProxy()).getOzoneManagerClient().lookupKey(args);
      answer.put("owner", info.getOwnerName());
      answer.put("clientUser", UserGroupInformation.getCurrentUser().getUserName());
      UserGroupInformation.AuthenticationMethod method =
          UserGroupInformation.getCurrentUser().getAuthenticationMethod();
      answer.put("clientAuthMethod", method.name());
      ArrayNode blocks = answer.putArray("blocks");
      var locations = info.getLatestVersionLocations().getBlocksLatestVersionOnly();
      for (OmKeyLocationInfo location : locations) {
        ObjectNode block = blocks.addObject();
        block.put("containerId", Long.toString(location.getContainerID()));
        block.put("localId", Long.toString(location.getLocalID()));
        Token<OzoneBlockTokenIdentifier> token = location.getToken();
        if (token == null) continue;
        ObjectNode t = block.putObject("token");
        t.put("kind", token.getKind().toString());
        t.put("service", token.getService().toString());
        t.put("passwordBytes", token.getPassword().length);
        OzoneBlockTokenIdentifier id = token.decodeIdentifier();
        t.put("ownerId", id.getOwnerId());
        t.put("blockId", id.getService());
        t.put("expiryDate", id.getExpiryDate());
        t.put("maxLength", id.getMaxLength());
        UUID secretKeyId = id.getSecretKeyId();
        t.put("secretKeyId", secretKeyId == null ? null : secretKeyId.toString());
        ArrayNode modes = t.putArray("modes");
        for (var mode : id.getAccessModes()) modes.add(mode.name());
      }
    }
  }

  /**
   * Asks the OM for a delegation token (Ozone's ObjectStore#getDelegationToken, which needs a
   * Kerberos-authenticated connection) and writes it to {@code file} as a Hadoop token storage
   * file, under the token's service as its alias (as `ozone sh token get` does). The answer
   * describes the token; its password stays in the file.
   */
  void fetchDelegationToken(String renewer, Path file, ObjectNode answer) throws IOException {
    try (OzoneClient client = OzoneClientFactory.getRpcClient(conf)) {
      Token<OzoneTokenIdentifier> token =
          client.getObjectStore().getDelegationToken(new Text(renewer));
      if (token == null) throw new IOException("the OM issued no delegation token");
      Credentials credentials = new Credentials();
      credentials.addToken(token.getService(), token);
      java.nio.file.Files.createDirectories(file.toAbsolutePath().getParent());
      credentials.writeTokenStorageFile(
          new org.apache.hadoop.fs.Path(file.toUri()), conf);
      OzoneTokenIdentifier id = token.decodeIdentifier();
      answer.put("file", file.toString());
      answer.put("kind", token.getKind().toString());
      answer.put("service", token.getService().toString());
      answer.put("owner", id.getOwner().toString());
      answer.put("renewer", id.getRenewer().toString());
      answer.put("realUser", id.getRealUser().toString());
      answer.put("issueDate", id.getIssueDate());
      answer.put("maxDate", id.getMaxDate());
      answer.put("sequenceNumber", id.getSequenceNumber());
    }
  }
}
