package fastpath.ratisfixture;

/** Just enough JSON writing for the launcher's one-line answers (no parsing is needed). */
final class Json {
  private Json() {}

  static String quote(String s) {
    if (s == null) return "null";
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
          else b.append(c);
        }
      }
    }
    return b.append('"').toString();
  }

  /** The message of an exception and of its causes, for an answer. */
  static String describe(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (b.length() > 0) b.append(" <- ");
      b.append(t.getClass().getName()).append(": ").append(t.getMessage());
    }
    return b.toString();
  }
}
