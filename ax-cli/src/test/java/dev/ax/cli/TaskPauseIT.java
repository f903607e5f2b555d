package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
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
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages =
            RunningStages.on(runtime, "node-1").ingest().ticker(THRESHOLD_1S).dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      TaskStore tasks = new TaskStore(runtime.dataSource());
      List<String> ids = List.of("once-now", "skip", "all");
      Commands.send(producer, runtime, "once-now", everySecond("{\"policy\":\"FIRE_ONCE_NOW\"}"));
      Commands.send(producer, runtime, "skip", everySecond("{\"policy\":\"SKIP\"}"));
      Commands.send(
          producer, runtime, "all", everySecond("{\"policy\":\"FIRE_ALL\",\"maxFireAll\":3}"));
      for (String id : ids) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Commands.count(instances.findByTask(id), InstanceStatus.SUCCESS) >= 1);
      }

      for (String id : ids) {
        Commands.sendJson(producer, runtime, id, Commands.lifecycle("PAUSE", id, "p-" + id));
      }
      for (String id : ids) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> tasks.find(id).orElseThrow().state(), "PAUSED"::equals);
      }
      // Five seconds paused: every one of their next firings is held, nothing of theirs runs.
      Map<String, Long> succeededAtPause =
          Map.of(
              "once-now", Commands.count(instances.findByTask("once-now"), InstanceStatus.SUCCESS),
              "skip", Commands.count(instances.findByTask("skip"), InstanceStatus.SUCCESS),
              "all", Commands.count(instances.findByTask("all"), InstanceStatus.SUCCESS));
      await()
          .during(Duration.ofSeconds(5))
          .atMost(Duration.ofSeconds(7))
          .untilAsserted(
              () -> {
                for (String id : ids) {
                  List<InstanceRow> rows = instances.findByTask(id);
                  assertThat(Commands.count(rows, InstanceStatus.SUCCESS))
                      .as("%s ran while paused", id)
                      .isLessThanOrEqualTo(succeededAtPause.get(id) + 1); // one was running
                  assertThat(rows)
                      .extracting(InstanceRow::status)
                      .as("%s while paused", id)
                      .contains(InstanceStatus.PAUSED)
                      .doesNotContain(InstanceStatus.SCHEDULED);
                }
              });
      Map<String, InstanceRow> held =
          Map.of(
              "once-now", paused(instances.findByTask("once-now")),
              "skip", paused(instances.findByTask("skip")),
              "all", paused(instances.findByTask("all")));

      for (String id : ids) {
        Commands.sendJson(producer, runtime, id, Commands.lifecycle("RESUME", id, "r-" + id));
      }
      // Each chain goes on: a firing after the resume runs on time.
      for (String id : ids) {
        long resumedAtMs = runtime.clock().millis();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    instances.findByTask(id).stream()
                        .anyMatch(
                            r ->
                                r.status() == InstanceStatus.SUCCESS
                                    && r.dueAtMs() > resumedAtMs + INTERVAL_MS));
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
      Commands.sendJson(producer, runtime, "skip", Commands.lifecycle("RESUME", "skip", "r-skip"));
      Commands.sendJson(producer, runtime, "skip", Commands.lifecycle("PAUSE", "skip", "p2-skip"));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> tasks.find("skip").orElseThrow().state(), "PAUSED"::equals);
    }
  }

  private static String everySecond(String misfire) {
    return "\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":"
        + INTERVAL_MS
        + "},\"misfire\":"
        + misfire
        + ",\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}";
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
