package dev.ax.common.contract;

/**
 * A producer's value quoted in a rejection reason, capped so that a reason always fits in a Kafka
 * header and a log line: a hostile command can make its values as long as the command itself. Every
 * reason that repeats a value from the message goes through here. Stateless.
 */
public final class Echo {

  /** The most characters of one value a reason repeats. */
  public static final int MAX_CHARS = 200;

  private Echo() {}

  /** {@code value} in single quotes, {@linkplain #cut cut} to about {@link #MAX_CHARS}. */
  public static String of(String value) {
    if (value == null) {
      return "null";
    }
    return capped(value, "'");
  }

  /**
   * {@code text} cut to about {@link #MAX_CHARS} characters, with the full length said when cut,
   * and with control characters shown as {@code \\uXXXX} so a reason stays one line: for text that
   * holds a producer's bytes without being one value, such as a parser's message.
   */
  public static String cut(String text) {
    return text == null ? "null" : capped(text, "");
  }

  private static String capped(String text, String quote) {
    StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_CHARS) + 32).append(quote);
    int i = 0;
    for (; i < text.length() && out.length() < MAX_CHARS + quote.length(); i++) {
      char c = text.charAt(i);
      if (Character.isISOControl(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    boolean cut = i < text.length();
    if (cut && Character.isHighSurrogate(out.charAt(out.length() - 1))) {
      out.setLength(out.length() - 1); // never leave half a surrogate pair
    }
    out.append(quote);
    if (cut) {
      out.append("... (").append(text.length()).append(" characters)");
    }
    return out.toString();
  }
}
