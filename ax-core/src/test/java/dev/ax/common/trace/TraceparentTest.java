package dev.ax.common.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.Trigger;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class TraceparentTest {

  @Test
  void parsesValidHeadersAndRefusesInvalidOnes() {
    assertThat(Traceparent.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        .contains(new Traceparent("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", "01"));
    // a later version may carry more fields; version 00 may not
    assertThat(Traceparent.parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x"))
        .isPresent();
    for (String bad :
        List.of(
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\nforged")) {
      assertThat(Traceparent.parse(bad)).as(bad).isEmpty();
    }
    assertThat(Traceparent.parse(null)).isEmpty();
    assertThat(Traceparent.parse("0".repeat(10_000))).isEmpty();
  }

  @Test
  void aHopKeepsTheTraceAndNamesItsOwnSpan() {
    Traceparent due = Traceparent.of("4bf92f3577b34da6a3ce929d0e0e4736", "due:t@1#1");
    Traceparent completed = Traceparent.of("4bf92f3577b34da6a3ce929d0e0e4736", "completed:t@1#1");
    assertThat(due.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(due.parentId()).matches("[0-9a-f]{16}").isNotEqualTo(completed.parentId());
    assertThat(Traceparent.parse(due.header())).contains(due);
    // a producer's own trace id maps to one W3C trace, the same on every hop
    assertThat(Traceparent.of("order-42", "a").traceId())
        .matches("[0-9a-f]{32}")
        .isEqualTo(Traceparent.of("order-42", "b").traceId());
  }

  @Test
  void eachRunOfAPeriodicTaskHasItsOwnTraceAndAOneShotRunKeepsTheTasks() {
    Trigger rate = new Trigger.FixedRate(Duration.ofSeconds(1), null);
    String first = TraceIds.ofInstance(rate, "task-trace", "t@1000");
    assertThat(first)
        .matches("[0-9a-f]{32}")
        .isNotEqualTo(TraceIds.ofInstance(rate, "task-trace", "t@2000"))
        .isEqualTo(TraceIds.ofInstance(rate, "task-trace", "t@1000"));
    assertThat(TraceIds.ofInstance(new Trigger.Once(Instant.EPOCH, null), "task-trace", "t@0"))
        .isEqualTo("task-trace");
  }

  @Test
  void aLogScopeSetsItsFieldsAndPutsBackWhatWasThere() {
    MDC.put(TraceLog.TRACE_ID, "outer");
    try (TraceLog fields = TraceLog.ofRun("run", "t", "t@1", "task")) {
      assertThat(MDC.get(TraceLog.TRACE_ID)).isEqualTo("run");
      assertThat(MDC.get(TraceLog.TASK_TRACE_ID)).isEqualTo("task");
      assertThat(MDC.get(TraceLog.INSTANCE_ID)).isEqualTo("t@1");
    }
    assertThat(MDC.get(TraceLog.TRACE_ID)).isEqualTo("outer");
    assertThat(MDC.get(TraceLog.INSTANCE_ID)).isNull();
    MDC.clear();
  }

  @Test
  void aBatchLineNamesTheFirstIdsAndCountsTheRest() {
    assertThat(TraceLog.firstIds(List.of("a", "b", "c"), s -> s, s -> s + "T", 2))
        .isEqualTo("a[aT], b[bT] and 1 more");
  }
}
