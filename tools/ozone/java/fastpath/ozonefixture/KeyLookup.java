package fastpath.ozonefixture;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.apache.hadoop.ozone.om.OzoneManager;
import org.apache.hadoop.ozone.om.exceptions.OMException;
import org.apache.hadoop.ozone.om.helpers.OmKeyArgs;
import org.apache.hadoop.ozone.om.helpers.OmKeyInfo;
import org.apache.hadoop.ozone.om.helpers.OmKeyLocationInfo;
import org.apache.hadoop.ozone.om.helpers.OmKeyLocationInfoGroup;

/**
 * Looks a committed key up in the OM from the Java side, so that a test can check what a
 * non-Java client committed (or did not) without trusting that client's own reading: whether the
 * key exists, its length, its metadata, and each block with the BCSID the OM recorded for it.
 */
final class KeyLookup {
  private KeyLookup() {}

  static void lookup(OzoneManager om, String volume, String bucket, String key, ObjectNode answer)
      throws IOException {
    OmKeyArgs args =
        new OmKeyArgs.Builder()
            .setVolumeName(volume)
            .setBucketName(bucket)
            .setKeyName(key)
            .build();
    OmKeyInfo info;
    try {
      info = om.lookupKey(args);
    } catch (OMException e) {
      if (e.getResult() == OMException.ResultCodes.KEY_NOT_FOUND
          || e.getResult() == OMException.ResultCodes.FILE_NOT_FOUND) {
        answer.put("found", false);
        return;
      }
      throw e;
    }
    answer.put("found", true);
    answer.put("dataSize", info.getDataSize());
    // The key's metadata, e.g. hsyncClientId while an hsync'ed key is still open.
    ObjectNode metadata = answer.putObject("metadata");
    info.getMetadata().forEach(metadata::put);
    ArrayNode blocks = answer.putArray("blocks");
    OmKeyLocationInfoGroup latest = info.getLatestVersionLocations();
    if (latest == null) return;
    for (OmKeyLocationInfo block : latest.getLocationList()) {
      ObjectNode b = blocks.addObject();
      // As strings: container and local IDs use the whole Java long range.
      b.put("containerId", Long.toString(block.getContainerID()));
      b.put("localId", Long.toString(block.getLocalID()));
      b.put("blockCommitSequenceId", Long.toString(block.getBlockCommitSequenceId()));
      b.put("length", block.getLength());
    }
  }
}
