package dev.ax.common.trace;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A W3C Trace Context {@code traceparent}: {@code version-traceid-parentid-flags}, e.g. {@code
 * 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01}. AX reads one on a command (a field or a
 * Kafka header) and writes one on every event it sends, the HTTP call and the shell environment, so
 * a tracing system can join AX's hops to the producer's trace.
 *
 * @param traceId 32 lower-case hex digits, not all zero
 * @param parentId 16 lower-case hex digits, not all zero: the sender's span
 * @param flags 2 hex digits (01 = sampled)
 */
public record Traceparent(String traceId, String parentId, String flags) {

  /** The Kafka header and HTTP header name. */
  public static final String HEADER = "traceparent";

  /** The environment variable a script reads it from (OpenTelemetry's carrier name). */
  public static final String ENVIRONMENT = "TRACEPARENT";

  // Version 00 is exactly four fields; a later version may append fields after a dash (W3C 4.3).
  private static final Pattern FORMAT =
      Pattern.compile(
          "([0-9a-f]{2})-((?!0{32})[0-9a-f]{32})-((?!0{16})[0-9a-f]{16})-([0-9a-f]{2})(-.*)?");

  /** The traceparent AX sends for a hop of {@code traceId}: {@code hop} names the span. */
  public static Traceparent of(String traceId, String hop) {
    return new Traceparent(TraceIds.w3c(traceId), TraceIds.spanId(traceId + '\n' + hop), "01");
  }

  /**
   * The traceparent {@code text} is, or empty when it is not a valid one (a wrong length,
   * upper-case hex, an all-zero id, version ff, or extra fields on version 00).
   */
  public static Optional<Traceparent> parse(String text) {
    if (text == null || text.length() > 512) {
      return Optional.empty();
    }
    Matcher m = FORMAT.matcher(text.strip());
    if (!m.matches()
        || m.group(1).equals("ff")
        || (m.group(1).equals("00") && m.group(5) != null)) {
      return Optional.empty();
    }
    return Optional.of(new Traceparent(m.group(2), m.group(3), m.group(4)));
  }

  /** The header value. */
  public String header() {
    return "00-" + traceId + '-' + parentId + '-' + flags;
  }
}
