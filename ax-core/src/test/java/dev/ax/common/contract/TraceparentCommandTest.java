package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.time.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A command's trace: its traceId, else its W3C traceparent (field, else header), else a new one.
 */
class TraceparentCommandTest {

  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private final CommandReader reader =
      new CommandReader(
          Duration.ofSeconds(60),
          IntakeLimits.DEFAULTS,
          new SettableClock(Instant.parse("2026-06-01T00:00:00Z")));

  private CommandReadResult read(String extraFields, String header) {
    String json =
        "{\"v\":1,\"taskId\":\"t\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":5},"
            + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}"
            + extraFields
            + "}";
    return reader.read(json.getBytes(StandardCharsets.UTF_8), header);
  }

  private static String traceOf(CommandReadResult result) {
    assertThat(result).isInstanceOf(CommandReadResult.Accepted.class);
    return ((CommandReadResult.Accepted) result).command().traceId();
  }

  @Test
  void aNewTraceIsAW3cTraceId() {
    assertThat(traceOf(read("", null))).matches("[0-9a-f]{32}");
  }

  @Test
  void theTraceparentHeaderOrFieldGivesTheTrace() {
    assertThat(traceOf(read("", TRACEPARENT))).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(traceOf(read(",\"traceparent\":\"" + TRACEPARENT + "\"", null)))
        .isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(
            traceOf(
                read(
                    ",\"traceId\":\"4bf92f3577b34da6a3ce929d0e0e4736\",\"traceparent\":\""
                        + TRACEPARENT
                        + "\"",
                    null)))
        .isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
  }

  @Test
  void aTraceIdWithoutTraceparentIsKeptAsGiven() {
    assertThat(traceOf(read(",\"traceId\":\"order-42\"", null))).isEqualTo("order-42");
  }

  @Test
  void aBadOrConflictingTraceparentIsRejectedWithAReason() {
    assertThat(read("", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"))
        .isInstanceOfSatisfying(
            CommandReadResult.Rejected.class,
            r -> assertThat(r.reason()).startsWith("traceparent must be a W3C traceparent"));
    assertThat(
            read(
                ",\"traceparent\":\"00-00000000000000000000000000000000-00f067aa0ba902b7-01\"",
                null))
        .isInstanceOf(CommandReadResult.Rejected.class);
    assertThat(read(",\"traceId\":\"order-42\"", TRACEPARENT))
        .isInstanceOfSatisfying(
            CommandReadResult.Rejected.class,
            r -> assertThat(r.reason()).contains("name different traces"));
  }
}
