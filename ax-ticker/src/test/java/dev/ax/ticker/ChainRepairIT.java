package dev.ax.ticker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The reaper's chain repair on a real database: an ACTIVE CRON or FIXED_RATE task left with no live
 * instance (its next firing's row was removed, as a defect once did by cancelling it) gets its next
 * slot back, counted; a PAUSED or CANCELLED one does not.
 */
@ExtendWith(AxInfraExtension.class)
class ChainRepairIT {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  @Test
  void anActivePeriodicTaskWithNoNextFiringGetsItBackAndAStoppedOneDoesNot(AxTestEnv env)
      throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env, FastReaper.SETTINGS)) {
      long nowMs = runtime.clock().millis();
      // Hourly: the restored slot is far enough ahead to be looked at before it fires.
      Trigger hourly = new Trigger.Cron("0 0 * * * ?", ZoneOffset.UTC);
      Trigger everyHour = new Trigger.FixedRate(Duration.ofHours(1), null);
      for (String taskId : List.of("cron-lost", "cron-paused", "cron-cancelled")) {
        chainless(runtime, taskId, hourly, nowMs);
      }
      chainless(runtime, "rate-lost", everyHour, nowMs);
      // Paused longer than the retention: its every instance is gone, and a RESUME found none.
      chainless(runtime, "delay-gone", new Trigger.FixedDelay(Duration.ofHours(1), null), nowMs);
      RawSql.execute(runtime.dataSource(), "DELETE FROM ax_instance WHERE task_id = 'delay-gone'");
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_task SET state = 'PAUSED' WHERE task_id = 'cron-paused'");
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_task SET state = 'CANCELLED' WHERE task_id = 'cron-cancelled'");

      StageContext context = runtime.context("ticker-1");
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      try (TickerStage ticker =
          new TickerStage(context, TickerConfig.from(runtime.config())).start()) {
        await().atMost(DEADLINE).until(() -> scheduled(instances, "cron-lost").size() == 1);
        await().atMost(DEADLINE).until(() -> scheduled(instances, "rate-lost").size() == 1);
        long nextHourMs =
            new FireTimes().first(hourly, Instant.ofEpochMilli(nowMs)).orElseThrow().toEpochMilli();
        assertThat(scheduled(instances, "cron-lost"))
            .extracting(InstanceRow::instanceId)
            .containsExactly(InstanceIds.of("cron-lost", nextHourMs));
        assertThat(context.meters().counter("ax.reaper.chains.repaired").count())
            .isGreaterThanOrEqualTo(3);
        // Several passes later, the stopped tasks still have nothing to fire.
        double repaired = context.meters().counter("ax.reaper.chains.repaired").count();
        await()
            .during(Duration.ofSeconds(1))
            .atMost(Duration.ofSeconds(5))
            .until(() -> context.meters().counter("ax.reaper.chains.repaired").count() == repaired);
        assertThat(scheduled(instances, "cron-paused")).isEmpty();
        assertThat(scheduled(instances, "cron-cancelled")).isEmpty();
      }
    }
  }

  /** A task whose one instance fired an hour ago and succeeded, with no next firing stored. */
  private static void chainless(TestRuntime runtime, String taskId, Trigger trigger, long nowMs)
      throws Exception {
    long firedMs = nowMs - 3_600_000;
    new TaskStore(runtime.dataSource())
        .create(
            List.of(new NewTask(TestTasks.noop(taskId, trigger), "trace", firedMs)),
            "test",
            firedMs);
    RawSql.execute(
        runtime.dataSource(),
        "UPDATE ax_instance SET status = 'SUCCESS', dispatched_at_ms = "
            + firedMs
            + ", finished_at_ms = "
            + (firedMs + 10)
            + " WHERE task_id = '"
            + taskId
            + "'");
  }

  private static List<InstanceRow> scheduled(InstanceStore instances, String taskId) {
    return instances.findByTask(taskId).stream()
        .filter(r -> r.status() == InstanceStatus.SCHEDULED)
        .toList();
  }
}
