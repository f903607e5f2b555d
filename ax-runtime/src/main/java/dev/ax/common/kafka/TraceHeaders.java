package dev.ax.common.kafka;

import dev.ax.common.trace.Traceparent;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.header.Headers;

/**
 * The trace headers every AX event carries: AX's own trace id ({@link RejectHeaders#TRACE_ID}) and
 * a W3C {@code traceparent} for the hop that sends it, so a tracing system's Kafka instrumentation
 * continues the producer's trace. The one place events get them. Stateless.
 */
public final class TraceHeaders {

  private TraceHeaders() {}

  /**
   * The headers of an event of {@code traceId}, as a mutable map (an outbox row's headers).
   *
   * @param hop what this send is, unique within the trace (e.g. {@code due:<instance>#<attempt>}):
   *     it names the span the {@code traceparent} carries
   */
  public static Map<String, String> of(String traceId, String hop) {
    Map<String, String> headers = new HashMap<>(4);
    if (traceId != null) {
      headers.put(RejectHeaders.TRACE_ID, traceId);
      headers.put(Traceparent.HEADER, Traceparent.of(traceId, hop).header());
    }
    return headers;
  }

  /** Adds the headers of {@link #of} to a record's; nothing when {@code traceId} is null. */
  public static void addTo(Headers headers, String traceId, String hop) {
    of(traceId, hop)
        .forEach((name, value) -> headers.add(name, value.getBytes(StandardCharsets.UTF_8)));
  }
}
