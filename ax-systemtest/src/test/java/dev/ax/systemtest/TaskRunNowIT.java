package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.cron;
import static dev.ax.systemtest.TaskBody.noop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * RUN_NOW through the whole pipeline: a task that fires once a day runs now, once per command id
 * however often the command comes, without touching its daily firing; while paused it is refused.
 */
@ExtendWith(AxInfraExtension.class)
class TaskRunNowIT {

  @Test
  void runNowAddsOneRunPerCommandAndIsRefusedWhilePaused(AxTestEnv env) throws Exception {
    try (OneNode node = OneNode.start(env)) {
      InstanceStore instances = node.instances();
      // Daily, at an hour half a day from now: the daily firing must stay SCHEDULED through the
      // test, whatever the time of day it runs at (at 3 AM UTC it once fired mid-test).
      int farHour = (ZonedDateTime.now(ZoneOffset.UTC).getHour() + 12) % 24;
      node.send("nightly", noop(cron("0 0 " + farHour + " * * ?", "UTC")));
      InstanceRow daily = Commands.awaitFirstInstance(node.runtime(), "nightly", r -> true);

      String runNow = Commands.lifecycle("RUN_NOW", "nightly", "rn-1");
      node.sendJson("nightly", runNow);
      node.sendJson("nightly", runNow);
      node.sendJson("nightly", runNow.replace("rn-1", "rn-2"));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> extraRuns(instances).stream().filter(this::succeeded).count() == 2);
      // The repeated command stays one run; the daily firing is untouched.
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(4))
          .until(() -> extraRuns(instances).size() == 2);
      assertThat(extraRuns(instances))
          .extracting(InstanceRow::instanceId)
          .containsExactlyInAnyOrder("nightly@run:rn-1", "nightly@run:rn-2");
      assertThat(instances.find(daily.instanceId()).orElseThrow().status())
          .isEqualTo(InstanceStatus.SCHEDULED);
      assertThat(instances.findByTask("nightly")).hasSize(3);

      node.sendJson("nightly", Commands.lifecycle("PAUSE", "nightly", "p-1"));
      node.awaitState("nightly", "PAUSED");
      node.sendJson("nightly", runNow.replace("rn-1", "rn-3"));
      String reason = node.awaitRejections(1).get(0);
      assertThat(reason).isEqualTo("RUN_NOW of task nightly, which is PAUSED (resume it first)");
      assertThat(extraRuns(instances)).hasSize(2);
    }
  }

  private boolean succeeded(InstanceRow row) {
    return row.status() == InstanceStatus.SUCCESS;
  }

  private static List<InstanceRow> extraRuns(InstanceStore instances) {
    return instances.findByTask("nightly").stream()
        .filter(r -> r.instanceId().contains("@run:"))
        .toList();
  }
}
