package fastpath.ozonefixture;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.ozone.client.BucketArgs;
import org.apache.hadoop.ozone.client.ObjectStore;
import org.apache.hadoop.ozone.client.OzoneClient;
import org.apache.hadoop.ozone.client.OzoneClientFactory;
import org.apache.hadoop.ozone.client.OzoneVolume;
import org.apache.hadoop.ozone.om.exceptions.OMException;
import org.apache.hadoop.ozone.s3.Gateway;
import org.apache.hadoop.ozone.s3.OzoneConfigurationHolder;

/**
 * Ozone's S3 gateway ({@code org.apache.hadoop.ozone.s3.Gateway} of the ozone-s3gateway jar) in
 * the cluster's JVM, the way Ozone's own integration tests run it beside a MiniOzoneCluster: the
 * cluster's configuration with every gateway listener on a free loopback port, handed to the
 * gateway through its configuration holder, then the gateway's own command run with no
 * arguments. The S3 buckets it serves are the buckets of one volume ({@code ozone.s3g.volume.name},
 * {@code s3v} by default); {@link #link} makes a bucket of another volume visible there.
 */
final class S3GatewayRunner {
  private static final String[] NO_ARGS = new String[0];
  // The gateway's listeners: S3 over HTTP (the one clients use), HTTPS (not started without a
  // keystore, but its address is read), and the web-admin pages on a port of their own.
  private static final String[] ADDRESS_KEYS = {
    "ozone.s3g.http-address",
    "ozone.s3g.https-address",
    "ozone.s3g.webadmin.http-address",
    "ozone.s3g.webadmin.https-address",
  };
  private static final String[] BIND_HOST_KEYS = {
    "ozone.s3g.http-bind-host",
    "ozone.s3g.https-bind-host",
    "ozone.s3g.webadmin.http-bind-host",
    "ozone.s3g.webadmin.https-bind-host",
  };

  private final OzoneConfiguration clusterConf;
  private Gateway gateway;
  private String volume;

  S3GatewayRunner(OzoneConfiguration clusterConf) {
    this.clusterConf = clusterConf;
  }

  /** Starts the gateway unless it runs already; answers its address either way. */
  synchronized void start(ObjectNode answer) throws Exception {
    if (gateway == null) {
      OzoneConfiguration conf = new OzoneConfiguration(clusterConf);
      for (String key : ADDRESS_KEYS) conf.set(key, "127.0.0.1:" + freeLoopbackPort());
      for (String key : BIND_HOST_KEYS) conf.set(key, "127.0.0.1");
      // The holder keeps the first configuration it is given: clear what an earlier gateway left.
      OzoneConfigurationHolder.resetConfiguration();
      OzoneConfigurationHolder.setConfiguration(conf);
      Gateway candidate = new Gateway();
      // The gateway's command reports a failure as an exit code (and prints it): keep the
      // exception itself, so the answer can name the missing class or the port.
      AtomicReference<Throwable> failure = new AtomicReference<>();
      candidate
          .getCmd()
          .setExecutionExceptionHandler(
              (e, commandLine, parseResult) -> {
                failure.set(e);
                return 1;
              });
      int code = candidate.execute(NO_ARGS);
      if (failure.get() != null) throw new IllegalStateException("the S3 gateway did not start", failure.get());
      if (code != 0) throw new IllegalStateException("the S3 gateway's command exited with " + code);
      gateway = candidate;
      volume = conf.get("ozone.s3g.volume.name", "s3v");
      ensureVolume(volume);
    }
    InetSocketAddress http = gateway.getHttpAddress();
    String address = "127.0.0.1:" + http.getPort();
    answer.put("httpAddress", address);
    answer.put("endpoint", "http://" + address);
    answer.put("volume", volume);
  }

  /**
   * Creates {@code name} in the gateway's volume as a link to {@code sourceVolume/sourceBucket}
   * (Ozone's bucket links: the OM resolves them, so S3 reads the source bucket's very keys).
   */
  synchronized void link(String name, String sourceVolume, String sourceBucket, ObjectNode answer)
      throws IOException {
    if (gateway == null) throw new IllegalStateException("the S3 gateway is not running");
    try (OzoneClient client = OzoneClientFactory.getRpcClient(clusterConf)) {
      OzoneVolume s3 = client.getObjectStore().getVolume(volume);
      try {
        s3.createBucket(
            name,
            BucketArgs.newBuilder().setSourceVolume(sourceVolume).setSourceBucket(sourceBucket).build());
        answer.put("created", true);
      } catch (OMException e) {
        if (e.getResult() != OMException.ResultCodes.BUCKET_ALREADY_EXISTS) throw e;
        var existing = s3.getBucket(name);
        if (!sourceVolume.equals(existing.getSourceVolume())
            || !sourceBucket.equals(existing.getSourceBucket())) {
          throw new IllegalArgumentException(
              "bucket " + volume + "/" + name + " exists and is not a link to " + sourceVolume + "/"
                  + sourceBucket);
        }
        answer.put("created", false);
      }
    }
    answer.put("volume", volume);
    answer.put("bucket", name);
  }

  synchronized void stop() {
    if (gateway == null) return;
    try {
      gateway.stop();
    } catch (Throwable t) {
      System.err.println("fastpath: the S3 gateway did not stop cleanly: " + t);
    }
    gateway = null;
  }

  /** The OM creates the S3 volume when it starts; make sure of it rather than assume it. */
  private void ensureVolume(String name) throws IOException {
    try (OzoneClient client = OzoneClientFactory.getRpcClient(clusterConf)) {
      ObjectStore store = client.getObjectStore();
      try {
        store.createVolume(name);
      } catch (OMException e) {
        if (e.getResult() != OMException.ResultCodes.VOLUME_ALREADY_EXISTS) throw e;
      }
    }
  }

  private static int freeLoopbackPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
