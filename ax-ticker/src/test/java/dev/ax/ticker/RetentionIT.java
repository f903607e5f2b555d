package dev.ax.ticker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Retention on a running ticker's own thread: finished instances older than {@code AX_RETENTION}
 * go, with their audit rows, a batch at a time (paced by {@code AX_RETENTION_MAX_RATE}), while
 * active rows, a DEAD one without a closed dead letter, and recent ones are left exactly as they
 * were. The rows of tasks DELETED before the cutoff go once their instances have gone, with their
 * applied commands; a task deleted recently, one deleted with an instance still running, and every
 * task not deleted stay.
 */
@ExtendWith(AxInfraExtension.class)
class RetentionIT {

  private static final int OLD_FINISHED = 300;
  private static final int BATCH = 40;
  private static final int OLD_DELETED = 50;

  @Test
  void deletesOldFinishedRowsInBatchesAndNothingElse(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      long nowMs = runtime.clock().millis();
      long oldMs = nowMs - Duration.ofHours(2).toMillis();
      List<NewTask> tasks = new ArrayList<>();
      for (int i = 0; i < OLD_FINISHED; i++) {
        tasks.add(new NewTask(TestTasks.onceNoop("done-" + i), "trace", oldMs));
      }
      for (String kept : List.of("paused-1", "paused-2", "dead-1", "recent-1", "running-1")) {
        tasks.add(new NewTask(TestTasks.onceNoop(kept), "trace", oldMs));
      }
      for (int i = 0; i < OLD_DELETED; i++) {
        tasks.add(new NewTask(TestTasks.onceNoop("gone-" + i), "trace", oldMs));
      }
      for (String kept : List.of("deleted-lately", "deleted-running")) {
        tasks.add(new NewTask(TestTasks.onceNoop(kept), "trace", oldMs));
      }
      new TaskStore(runtime.dataSource()).create(tasks, "test", oldMs);
      // As the pipeline would have left them (their audit rows are the creation's).
      set(runtime, "SUCCESS", oldMs, "task_id LIKE 'done-%'");
      set(runtime, "PAUSED", oldMs, "task_id LIKE 'paused-%'");
      set(runtime, "DEAD", oldMs, "task_id = 'dead-1'");
      set(runtime, "SUCCESS", nowMs, "task_id = 'recent-1'");
      set(runtime, "RUNNING", oldMs, "task_id = 'running-1'");
      // As a DELETE would have left them: the task DELETED, its instance CANCELLED, its command.
      set(runtime, "CANCELLED", oldMs, "task_id LIKE 'gone-%' OR task_id = 'deleted-lately'");
      set(runtime, "RUNNING", oldMs, "task_id = 'deleted-running'");
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_task SET state = 'DELETED', updated_at_ms = "
              + oldMs
              + " WHERE task_id LIKE 'gone-%' OR task_id = 'deleted-running'");
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_task SET state = 'DELETED', updated_at_ms = "
              + nowMs
              + " WHERE task_id = 'deleted-lately'");
      RawSql.execute(
          runtime.dataSource(),
          "INSERT INTO ax_task_command (command_id, task_id, command_type, trace_id, applied_by,"
              + " applied_at_ms) SELECT 'd-1', task_id, 'DELETE', 'trace', 'test', "
              // Recent: an old command goes in any case, a recent one only with its task.
              + nowMs
              + " FROM ax_task WHERE state = 'DELETED'");
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      Map<String, InstanceRow> keptBefore = kept(instances);
      long keptAuditBefore = audit(runtime, "task_id NOT LIKE 'done-%'");
      assertThat(count(runtime, "done-%")).isEqualTo(OLD_FINISHED);
      // Switch records: one of a stage long gone (superseded, old), one of a stage that applied
      // the current version long ago, one superseded only a moment ago.
      SwitchStore switches = new SwitchStore(runtime.dataSource());
      switches.set("retries", "off", "test", oldMs);
      switches.set("retries", "on", "test", oldMs);
      switches.recordApplied("retries", "ax-retry@gone", 1, oldMs);
      switches.recordApplied("retries", "ax-retry@live", 2, oldMs);
      switches.recordApplied("retries", "ax-retry@restarting", 1, nowMs);

      Set<Long> seen = new ConcurrentSkipListSet<>();
      TickerConfig config =
          TickerConfig.from(
              runtime.config(
                  Map.of(
                      "AX_RETENTION", "1h",
                      "AX_RETENTION_BATCH", Integer.toString(BATCH),
                      // 40 instances and 40 audit rows a batch: one batch per 100 ms.
                      "AX_RETENTION_MAX_RATE", "800",
                      "AX_REAPER_INTERVAL", "200ms")));
      try (TickerStage ticker = new TickerStage(runtime.context("ticker-1"), config).start()) {
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> {
                  long left = count(runtime, "done-%");
                  seen.add(left);
                  return left == 0 && tasks(runtime, "task_id LIKE 'gone-%'") == 0;
                });
      }
      assertThat(seen)
          .as("the backlog shrinks a batch at a time, not at once")
          .anyMatch(left -> left > 0 && left < OLD_FINISHED);
      assertThat(audit(runtime, "task_id LIKE 'done-%'")).as("their audit rows").isZero();
      assertThat(kept(instances)).as("nothing else touched").isEqualTo(keptBefore);
      assertThat(audit(runtime, "task_id NOT LIKE 'done-%' AND task_id NOT LIKE 'gone-%'"))
          .isEqualTo(keptAuditBefore - OLD_DELETED - 1 /* deleted-lately's instance */);
      assertThat(tasks(runtime, "task_id LIKE 'done-%'"))
          .as("tasks not deleted stay, even with no instance left")
          .isEqualTo(OLD_FINISHED);
      assertThat(tasks(runtime, "task_id IN ('deleted-lately', 'deleted-running')"))
          .as("deleted lately, or with an instance left")
          .isEqualTo(2);
      assertThat(
              new Jdbc(runtime.dataSource())
                  .queryLong(
                      "counting applied commands",
                      "SELECT COUNT(*) FROM ax_task_command",
                      Jdbc.Binder.values()))
          .as("the removed tasks' commands went with them")
          .isEqualTo(2);
      assertThat(switches.applied())
          .as("only the old superseded switch record goes")
          .extracting(SwitchStore.Applied::stage)
          .containsExactly("ax-retry@live", "ax-retry@restarting");
    }
  }

  private static void set(TestRuntime runtime, String status, long atMs, String where)
      throws Exception {
    RawSql.execute(
        runtime.dataSource(),
        "UPDATE ax_instance SET status = '"
            + status
            + "', updated_at_ms = "
            + atMs
            + (status.equals("SUCCESS") ? ", finished_at_ms = " + atMs : "")
            + (status.equals("RUNNING")
                ? ", owner = 'gone', lease_until_ms = " + Long.MAX_VALUE / 2
                : "")
            + " WHERE "
            + where);
  }

  private static Map<String, InstanceRow> kept(InstanceStore instances) {
    Map<String, InstanceRow> rows = new TreeMap<>();
    for (String taskId : List.of("paused-1", "paused-2", "dead-1", "recent-1", "running-1")) {
      instances.findByTask(taskId).forEach(r -> rows.put(r.instanceId(), r));
    }
    assertThat(rows).hasSize(5);
    assertThat(rows.values())
        .extracting(InstanceRow::status)
        .contains(InstanceStatus.PAUSED, InstanceStatus.DEAD, InstanceStatus.RUNNING);
    return rows;
  }

  private static long count(TestRuntime runtime, String taskIdLike) {
    return new Jdbc(runtime.dataSource())
        .queryLong(
            "counting instances",
            "SELECT COUNT(*) FROM ax_instance WHERE task_id LIKE ?",
            Jdbc.Binder.values(taskIdLike));
  }

  private static long tasks(TestRuntime runtime, String where) {
    return new Jdbc(runtime.dataSource())
        .queryLong(
            "counting tasks", "SELECT COUNT(*) FROM ax_task WHERE " + where, Jdbc.Binder.values());
  }

  private static long audit(TestRuntime runtime, String where) {
    return new Jdbc(runtime.dataSource())
        .queryLong(
            "counting audit rows",
            "SELECT COUNT(*) FROM ax_instance_log WHERE " + where,
            Jdbc.Binder.values());
  }
}
