package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * PAUSE and RESUME through the whole pipeline: three tasks firing every second, one per misfire
 * policy, are paused for five seconds (nothing of theirs runs) and resumed; what they missed is
 * caught up as each policy documents: FIRE_ONCE_NOW once, SKIP not at all, FIRE_ALL each missed
 * firing up to maxFireAll (the newest).
 */
@ExtendWith(AxInfraExtension.class)
class TaskPauseIT {

  private static final long INTERVAL_MS = 1000;
  private static final Map<String, String> THRESHOLD_1S =
      Map.of("AX_TICKER_MISFIRE_THRESHOLD", "1s");

  @Test
  void pausedTasksHoldTheirFiringsAndCatchUpByTheirMisfirePolicy(AxTestEnv env) throws Exception {
    try (OneNode node = OneNode.start(env, THRESHOLD_1S)) {
      InstanceStore instances = node.instances();
      List<String> ids = List.of("once-now", "skip", "all");
      node.send("once-now", everySecond("{\"policy\":\"FIRE_ONCE_NOW\"}"));
      node.send("skip", everySecond("{\"policy\":\"SKIP\"}"));
      node.send("all", everySecond("{\"policy\":\"FIRE_ALL\",\"maxFireAll\":3}"));
      for (String id : ids) {
        node.awaitSucceeded(id, 1);
      }

      for (String id : ids) {
        node.sendJson(id, Commands.lifecycle("PAUSE", id, "p-" + id));
      }
      for (String id : ids) {
        node.awaitState(id, "PAUSED");
      }
      // Five seconds paused: every one of their next firings is held, nothing of theirs runs.
      Map<String, Long> succeededAtPause =
          Map.of(
              "once-now", node.succeeded("once-now"),
              "skip", node.succeeded("skip"),
              "all", node.succeeded("all"));
      node.assertHeldWhilePaused(ids, succeededAtPause, Duration.ofSeconds(5));
      Map<String, InstanceRow> held =
          Map.of(
              "once-now", paused(instances.findByTask("once-now")),
              "skip", paused(instances.findByTask("skip")),
              "all", paused(instances.findByTask("all")));

      for (String id : ids) {
        node.sendJson(id, Commands.lifecycle("RESUME", id, "r-" + id));
      }
      // Each chain goes on: a firing after the resume runs on time.
      for (String id : ids) {
        node.awaitSucceededDueAfter(id, node.runtime().clock().millis() + INTERVAL_MS);
      }

      assertThat(status(instances, held.get("once-now")))
          .as("FIRE_ONCE_NOW: the held firing runs late, standing for every missed one")
          .isEqualTo(InstanceStatus.SUCCESS);
      assertThat(catchUps(instances.findByTask("once-now"))).isEmpty();

      assertThat(status(instances, held.get("skip")))
          .as("SKIP: the held firing is skipped")
          .isEqualTo(InstanceStatus.SKIPPED);
      assertThat(catchUps(instances.findByTask("skip"))).isEmpty();

      assertThat(status(instances, held.get("all")))
          .as("FIRE_ALL: the oldest missed firing is dropped beyond maxFireAll")
          .isEqualTo(InstanceStatus.SKIPPED);
      assertThat(catchUps(instances.findByTask("all")))
          .as("FIRE_ALL: the three newest missed firings run")
          .hasSize(3)
          .allMatch(r -> r.status() == InstanceStatus.SUCCESS);

      // Resuming twice under one id does nothing; a second RESUME under another id is refused.
      node.sendJson("skip", Commands.lifecycle("RESUME", "skip", "r-skip"));
      node.sendJson("skip", Commands.lifecycle("PAUSE", "skip", "p2-skip"));
      node.awaitState("skip", "PAUSED");
    }
  }

  private static String everySecond(String misfire) {
    return "\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":"
        + INTERVAL_MS
        + "},\"misfire\":"
        + misfire
        // The caught-up firings are due at once: each runs only if runs may overlap.
        + ",\"overlap\":\"ALLOW_ALL\",\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}";
  }

  /**
   * The held firing: the task's one PAUSED instance, or the earlier of two when the PAUSE came
   * between a firing and its claim (that firing and the successor created with it are held; on
   * RESUME the earlier stands for both, see ResumeHeldFiringsIT).
   */
  private static InstanceRow paused(List<InstanceRow> rows) {
    List<InstanceRow> held =
        rows.stream()
            .filter(r -> r.status() == InstanceStatus.PAUSED)
            .sorted(Comparator.comparingLong(InstanceRow::dueAtMs))
            .toList();
    assertThat(held).as("the held firing (and its successor)").hasSizeBetween(1, 2);
    if (held.size() == 2) {
      assertThat(held.get(1).dueAtMs() - held.get(0).dueAtMs()).isEqualTo(INTERVAL_MS);
    }
    return held.get(0);
  }

  private static InstanceStatus status(InstanceStore instances, InstanceRow row) {
    Optional<InstanceRow> now = instances.find(row.instanceId());
    return now.orElseThrow().status();
  }

  /** Instances created for a missed slot: due long after the slot their id names. */
  private static List<InstanceRow> catchUps(List<InstanceRow> rows) {
    return rows.stream().filter(r -> r.dueAtMs() - slotOf(r.instanceId()) > INTERVAL_MS).toList();
  }

  private static long slotOf(String instanceId) {
    return Long.parseLong(instanceId.substring(instanceId.lastIndexOf('@') + 1));
  }
}
