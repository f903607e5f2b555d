package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.CommandType;
import dev.ax.common.contract.TaskCommand;
import org.junit.jupiter.api.Test;

/** A TRIGGER's instance is due at its upstream's success, within bounds. */
class TriggerDueTimeTest {

  private static final long NOW_MS = 10_000_000;

  private static TaskCommand trigger(Long upstreamSucceededAtMs) {
    return new TaskCommand(
        1,
        CommandType.TRIGGER,
        "down",
        null,
        null,
        "trace",
        false,
        "flow-1",
        null,
        null,
        false,
        upstreamSucceededAtMs);
  }

  @Test
  void dueWhenTheUpstreamSucceeded() {
    assertThat(DependencyIntake.dueAtMs(trigger(NOW_MS - 250), NOW_MS)).isEqualTo(NOW_MS - 250);
  }

  @Test
  void nowWhenTheCommandDoesNotSayOrSaysTheFuture() {
    assertThat(DependencyIntake.dueAtMs(trigger(null), NOW_MS)).isEqualTo(NOW_MS);
    assertThat(DependencyIntake.dueAtMs(trigger(NOW_MS + 60_000), NOW_MS)).isEqualTo(NOW_MS);
    assertThat(DependencyIntake.dueAtMs(trigger(Long.MAX_VALUE), NOW_MS)).isEqualTo(NOW_MS);
  }

  @Test
  void neverFurtherBackThanTheLimit() {
    long limitMs = NOW_MS - DependencyIntake.MAX_TRIGGER_AGE.toMillis();
    assertThat(DependencyIntake.dueAtMs(trigger(0L), NOW_MS)).isEqualTo(limitMs);
    assertThat(DependencyIntake.dueAtMs(trigger(limitMs + 1), NOW_MS)).isEqualTo(limitMs + 1);
  }
}
