package dev.fastpath.hadoop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.Base64;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.crypto.CipherSuite;
import org.apache.hadoop.crypto.CryptoCodec;
import org.apache.hadoop.crypto.CryptoInputStream;
import org.apache.hadoop.crypto.CryptoOutputStream;
import org.apache.hadoop.crypto.JceAesCtrCryptoCodec;
import org.apache.hadoop.fs.PositionedReadable;
import org.apache.hadoop.fs.Seekable;

/**
 * AES/CTR/NoPadding as Hadoop's transparent encryption applies it, computed by Hadoop's own
 * classes: JceAesCtrCryptoCodec's calculateIV for given counters, CryptoOutputStream over a whole
 * plaintext, and CryptoInputStream's positional reads at given offsets of that ciphertext. The
 * TypeScript side compares its own cipher with these answers.
 */
final class CtrCodecVectors {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64D = Base64.getUrlDecoder();

  private CtrCodecVectors() {}

  static ObjectNode compute(JsonNode r) throws Exception {
    Configuration conf = new Configuration(false);
    // The JCE codec, named so that a native OpenSSL codec on the class path cannot stand in for it.
    conf.set("hadoop.security.crypto.codec.classes.aes.ctr.nopadding", JceAesCtrCryptoCodec.class.getName());
    CryptoCodec codec = CryptoCodec.getInstance(conf, CipherSuite.AES_CTR_NOPADDING);
    byte[] key = B64D.decode(r.get("key").asText());
    byte[] iv = B64D.decode(r.get("iv").asText());
    byte[] plain = B64D.decode(r.get("plaintext").asText());
    int bufferSize = r.path("bufferSize").asInt(8192);
    ObjectNode answer = JSON.createObjectNode();
    answer.put("codec", codec.getClass().getName());

    ArrayNode ivs = answer.putArray("calculatedIvs");
    for (JsonNode c : r.path("counters")) {
      byte[] out = new byte[16];
      codec.calculateIV(iv, Long.parseUnsignedLong(c.asText()), out);
      ivs.add(B64.encodeToString(out));
    }

    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    try (CryptoOutputStream out = new CryptoOutputStream(sink, codec, bufferSize, key, iv)) {
      out.write(plain);
    }
    byte[] cipher = sink.toByteArray();
    answer.put("ciphertext", B64.encodeToString(cipher));

    ArrayNode reads = answer.putArray("reads");
    try (CryptoInputStream in = new CryptoInputStream(new SeekableBytes(cipher), codec, bufferSize, key, iv)) {
      for (JsonNode range : r.path("reads")) {
        long position = range.get("position").asLong();
        byte[] got = new byte[range.get("length").asInt()];
        in.readFully(position, got, 0, got.length);
        reads.add(B64.encodeToString(got));
      }
    }
    return answer;
  }

  /** An in-memory stream with Hadoop's positioned reads, as CryptoInputStream needs beneath it. */
  private static final class SeekableBytes extends ByteArrayInputStream implements Seekable, PositionedReadable {
    SeekableBytes(byte[] data) {
      super(data);
    }

    @Override
    public void seek(long position) throws IOException {
      if (position < 0 || position > count) throw new EOFException("seek to " + position);
      pos = (int) position;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public boolean seekToNewSource(long target) {
      return false;
    }

    @Override
    public int read(long position, byte[] buffer, int offset, int length) {
      if (position >= count) return -1;
      int n = (int) Math.min(length, count - position);
      System.arraycopy(buf, (int) position, buffer, offset, n);
      return n;
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
      if (read(position, buffer, offset, length) != length) throw new EOFException("read past the end");
    }

    @Override
    public void readFully(long position, byte[] buffer) throws IOException {
      readFully(position, buffer, 0, buffer.length);
    }
  }
}
