package fastpath.ratisfixture;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;

/**
 * The launchers' stdin protocol: one command per line, {@code <n> <op> [args]}, answered with one
 * JSON line {@code {"id":n,"ok":…,…}} on stdout. A failing command answers {@code "ok":false}
 * with the exception chain as {@code message}; the loop goes on.
 */
final class CommandLoop {
  /** Runs one command; returns the answer's fields after {@code "id"}, e.g. {@code "ok":true}. */
  interface Handler {
    String handle(String op, String[] args) throws Exception;
  }

  private CommandLoop() {}

  /**
   * Answers commands until stdin ends or a command of {@code lastOps} has been answered.
   *
   * @return true when a command of {@code lastOps} ended the loop, false at the end of stdin
   */
  static boolean run(PrintStream out, Set<String> lastOps, Handler handler) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] words = line.trim().split(" ");
      if (words.length < 2) continue;
      String n = words[0];
      String op = words[1];
      String fields;
      try {
        fields = handler.handle(op, Arrays.copyOfRange(words, 2, words.length));
      } catch (Exception e) {
        fields = "\"ok\":false,\"message\":" + Json.quote(Json.describe(e));
      }
      out.println("{\"id\":" + n + "," + fields + "}");
      if (lastOps.contains(op)) return true;
    }
    return false;
  }

  static String unknown(String op) {
    return "\"ok\":false,\"message\":" + Json.quote("unknown op " + op);
  }
}
