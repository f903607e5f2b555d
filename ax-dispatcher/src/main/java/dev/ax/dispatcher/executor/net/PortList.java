package dev.ax.dispatcher.executor.net;

import java.util.ArrayList;
import java.util.List;

/**
 * The ports the HTTP executor may connect to: {@code 80,443,8000-8999}, or {@code *} for any.
 * Immutable.
 */
public final class PortList {

  private record Span(int from, int to) {}

  private final List<Span> spans;
  private final String text;

  private PortList(List<Span> spans, String text) {
    this.spans = List.copyOf(spans);
    this.text = text;
  }

  /**
   * Parses comma-separated ports and ranges; {@code *} is every port.
   *
   * @throws IllegalArgumentException for a part that is no port or range of ports, naming it
   */
  public static PortList parse(List<String> parts) {
    List<Span> spans = new ArrayList<>();
    for (String raw : parts) {
      String part = raw.strip();
      if (part.isEmpty()) {
        continue;
      }
      if (part.equals("*")) {
        spans.add(new Span(1, 65_535));
        continue;
      }
      int dash = part.indexOf('-');
      int from = port(dash < 0 ? part : part.substring(0, dash), raw);
      int to = dash < 0 ? from : port(part.substring(dash + 1), raw);
      if (to < from) {
        throw new IllegalArgumentException("port range runs backwards: " + raw);
      }
      spans.add(new Span(from, to));
    }
    return new PortList(spans, String.join(",", parts));
  }

  private static int port(String text, String part) {
    try {
      int port = Integer.parseInt(text.strip());
      if (port >= 1 && port <= 65_535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new IllegalArgumentException("not a port (1-65535) or range of ports: " + part);
  }

  public boolean allows(int port) {
    return spans.stream().anyMatch(s -> port >= s.from() && port <= s.to());
  }

  @Override
  public String toString() {
    return text;
  }
}
