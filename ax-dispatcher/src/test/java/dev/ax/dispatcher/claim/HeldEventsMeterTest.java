package dev.ax.dispatcher.claim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.testing.TestTasks;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The held-events gauge per pool: registered at a pool's first event, published once a second. */
class HeldEventsMeterTest {

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final HeldEventsMeter meter = new HeldEventsMeter(meters);
  private final HeldEvents held = new HeldEvents();

  private double gauge(String pool) {
    return meters.get("ax.dispatcher.held.events").tag("pool", pool).gauge().value();
  }

  @Test
  void aPoolIsExportedFromItsFirstEventAndPublishedAtMostOnceASecond() {
    meter.seen("billing");
    assertThat(gauge("billing")).as("registered before a publish").isZero();

    held.add("billing", due("a", 10));
    held.add("billing", due("b", 20));
    meter.publish(held, 1_000);
    assertThat(gauge("billing")).isEqualTo(2);

    held.add("shared", due("c", 30));
    meter.publish(held, 1_999);
    assertThat(meters.find("ax.dispatcher.held.events").tag("pool", "shared").gauge())
        .as("not published within the second")
        .isNull();

    held.take("billing", 2);
    meter.publish(held, 2_000);
    assertThat(gauge("billing")).as("an emptied pool reads 0").isZero();
    assertThat(gauge("shared")).isEqualTo(1);
  }

  private static TaskDueEvent due(String instanceId, long dueAtMs) {
    return TestTasks.dueEvent("task", instanceId, dueAtMs, 1, dueAtMs, "t", "g");
  }
}
