package dev.fastpath.hadoop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Base64;
import org.apache.hadoop.io.erasurecode.ErasureCodeNative;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.NativeRSRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.NativeRSRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.NativeXORRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.NativeXORRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.XORRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.XORRawEncoder;

/**
 * Runs hadoop-common's own raw erasure coders on given inputs, one JSON request per stdin line,
 * one JSON answer per stdout line ({"ok":true,...} or {"ok":false,"exception":FQCN,"message":...,"causes":[...]}).
 * Cells travel as standard base64; null stands for an absent decoder input.
 *
 * <p>Requests: {"op":"native"} (whether libhadoop with ISA-L loaded, and why not);
 * {"op":"encode","codec":"rs"|"xor","data":d,"parity":p,"coder":"java"|"native","cells":[...]}
 * → {"parity":[...]}; {"op":"decode",...,"inputs":[...|null],"erased":[...]} → {"outputs":[...]};
 * {"op":"bench",...,"cellBytes":n,"erasures":0|1|2,"rounds":r,"roundMs":t} → {"mibPerSecond":[...]},
 * the data bytes of whole stripes encoded (erasures 0) or decoded per second in each round.
 * The java coders work on heap arrays; the native ones need direct buffers, as in Hadoop.
 */
public final class ErasureCoderDriver {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Encoder B64 = Base64.getEncoder();
  private static final Base64.Decoder B64D = Base64.getDecoder();

  private ErasureCoderDriver() {}

  public static void main(String[] args) throws Exception {
    HadoopClientDriver.serve(ErasureCoderDriver::handle, () -> {});
  }

  private static ObjectNode handle(JsonNode req) throws Exception {
    String op = req.path("op").asText();
    ObjectNode answer = JSON.createObjectNode();
    switch (op) {
      case "native":
        answer.put("loaded", ErasureCodeNative.isNativeCodeLoaded());
        answer.put("reason", ErasureCodeNative.getLoadingFailureReason());
        return answer;
      case "encode":
        {
          RawErasureEncoder encoder = encoder(req);
          byte[][] data = cells(req.path("cells"));
          int len = data[0].length;
          byte[][] parity = new byte[encoder.getNumParityUnits()][len];
          if (isNative(req)) {
            ByteBuffer[] outputs = direct(parity);
            encoder.encode(direct(data), outputs);
            parity = heap(outputs, len);
          } else {
            encoder.encode(data, parity);
          }
          answer.put("coder", encoder.getClass().getName());
          answer.set("parity", b64(parity));
          return answer;
        }
      case "decode":
        {
          RawErasureDecoder decoder = decoder(req);
          byte[][] inputs = cells(req.path("inputs"));
          int[] erased = ints(req.path("erased"));
          int len = 0;
          for (byte[] cell : inputs) if (cell != null) len = cell.length;
          byte[][] outputs = new byte[erased.length][len];
          if (isNative(req)) {
            ByteBuffer[] outs = direct(outputs);
            decoder.decode(direct(inputs), erased, outs);
            outputs = heap(outs, len);
          } else {
            decoder.decode(inputs, erased, outputs);
          }
          answer.put("coder", decoder.getClass().getName());
          answer.set("outputs", b64(outputs));
          return answer;
        }
      case "bench":
        return bench(req);
      default:
        throw new IllegalArgumentException("unknown op " + op);
    }
  }

  /** Rounds of roundMs each; every round counts the stripes it finished. */
  private static ObjectNode bench(JsonNode req) throws Exception {
    int d = req.path("data").asInt();
    int p = req.path("parity").asInt();
    int n = req.path("cellBytes").asInt();
    int erasures = req.path("erasures").asInt();
    int rounds = req.path("rounds").asInt(5);
    long roundNanos = req.path("roundMs").asLong(1000) * 1_000_000L;
    boolean nat = isNative(req);
    byte[][] data = new byte[d][n];
    for (int j = 0; j < d; j++) for (int t = 0; t < n; t++) data[j][t] = (byte) (131 * j + 7 * t + (t >>> 8));
    byte[][] parity = new byte[p][n];
    RawErasureEncoder encoder = encoder(req);
    encoder.encode(data, parity);
    byte[][] inputs = new byte[d + p][];
    int[] erased = new int[erasures];
    for (int i = 0; i < d + p; i++) inputs[i] = i < d ? data[i] : parity[i - d];
    for (int e = 0; e < erasures; e++) {
      erased[e] = e;
      inputs[e] = null;
    }
    RawErasureDecoder decoder = erasures > 0 ? decoder(req) : null;
    byte[][] outputs = new byte[Math.max(erasures, p)][n];
    ByteBuffer[] dData = nat ? direct(data) : null;
    ByteBuffer[] dParity = nat ? direct(parity) : null;
    ByteBuffer[] dInputs = nat ? direct(inputs) : null;
    ByteBuffer[] dOutputs = nat ? direct(new byte[erasures][n]) : null;
    ArrayNode samples = JSON.createArrayNode();
    for (int round = -1; round < rounds; round++) { // round -1 warms the JIT up
      long start = System.nanoTime();
      long stripes = 0;
      while (System.nanoTime() - start < roundNanos) {
        if (erasures == 0) {
          if (nat) {
            for (ByteBuffer b : dData) b.clear();
            for (ByteBuffer b : dParity) b.clear();
            encoder.encode(dData, dParity);
          } else {
            encoder.encode(data, parity);
          }
        } else if (nat) {
          for (ByteBuffer b : dInputs) if (b != null) b.clear();
          for (ByteBuffer b : dOutputs) b.clear();
          decoder.decode(dInputs, erased, dOutputs);
        } else {
          byte[][] outs = new byte[erasures][];
          for (int e = 0; e < erasures; e++) outs[e] = outputs[e];
          decoder.decode(inputs, erased, outs);
        }
        stripes++;
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      if (round >= 0) samples.add(stripes * (double) d * n / (1 << 20) / seconds);
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.put("coder", (erasures == 0 ? encoder.getClass() : decoder.getClass()).getName());
    answer.set("mibPerSecond", samples);
    return answer;
  }

  private static boolean isNative(JsonNode req) {
    return "native".equals(req.path("coder").asText("java"));
  }

  private static ErasureCoderOptions options(JsonNode req) {
    return new ErasureCoderOptions(req.path("data").asInt(), req.path("parity").asInt());
  }

  private static RawErasureEncoder encoder(JsonNode req) {
    boolean xor = "xor".equals(req.path("codec").asText());
    if (isNative(req)) return xor ? new NativeXORRawEncoder(options(req)) : new NativeRSRawEncoder(options(req));
    return xor ? new XORRawEncoder(options(req)) : new RSRawEncoder(options(req));
  }

  private static RawErasureDecoder decoder(JsonNode req) {
    boolean xor = "xor".equals(req.path("codec").asText());
    if (isNative(req)) return xor ? new NativeXORRawDecoder(options(req)) : new NativeRSRawDecoder(options(req));
    return xor ? new XORRawDecoder(options(req)) : new RSRawDecoder(options(req));
  }

  private static byte[][] cells(JsonNode array) {
    byte[][] cells = new byte[array.size()][];
    for (int i = 0; i < cells.length; i++) {
      JsonNode cell = array.get(i);
      cells[i] = cell.isNull() ? null : B64D.decode(cell.asText());
    }
    return cells;
  }

  private static int[] ints(JsonNode array) {
    int[] values = new int[array.size()];
    for (int i = 0; i < values.length; i++) values[i] = array.get(i).asInt();
    return values;
  }

  private static ArrayNode b64(byte[][] cells) {
    ArrayNode array = JSON.createArrayNode();
    for (byte[] cell : cells) array.add(B64.encodeToString(cell));
    return array;
  }

  private static ByteBuffer[] direct(byte[][] cells) {
    ByteBuffer[] buffers = new ByteBuffer[cells.length];
    for (int i = 0; i < cells.length; i++) {
      if (cells[i] == null) continue;
      buffers[i] = ByteBuffer.allocateDirect(cells[i].length);
      buffers[i].put(cells[i]).flip();
    }
    return buffers;
  }

  private static byte[][] heap(ByteBuffer[] buffers, int len) {
    byte[][] cells = new byte[buffers.length][len];
    for (int i = 0; i < buffers.length; i++) {
      buffers[i].clear();
      buffers[i].get(cells[i], 0, len);
    }
    return cells;
  }
}
