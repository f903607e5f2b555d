package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.store.Jdbc;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ax bench --history}'s loader on the embedded database: every history row is an ENDED
 * one-shot task with its SUCCESS instance and the four audit rows of a successful run, finished
 * over the retention with the expired share past its cutoff, and the table sizes see them.
 */
@ExtendWith(AxInfraExtension.class)
class BenchHistoryIT {

  private static final int ROWS = 2_500; // not a multiple of a batch: the last one is partial

  @Test
  void loadsFinishedOneShotTasksWithTheirAuditRowsSpreadOverTheRetention(AxTestEnv env)
      throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      long nowMs = runtime.clock().millis();
      Duration retention = Duration.ofDays(7);
      BenchHistory history = new BenchHistory(ROWS, 10, retention);
      String prefix = "hist-it-" + Long.toString(nowMs, 36);
      AgedDatabase aged = new AgedDatabase(runtime.dataSource(), history, prefix, nowMs);
      TableSizes before = TableSizes.read(runtime.dataSource());

      AgedDatabase.Loaded loaded = aged.load(3, new PrintWriter(new StringWriter()));

      assertThat(loaded.rows()).isEqualTo(ROWS * 6L);
      Jdbc jdbc = new Jdbc(runtime.dataSource());
      String like = " LIKE '" + prefix + "-%'";
      assertThat(count(jdbc, "ax_task WHERE state = 'ENDED' AND task_id" + like)).isEqualTo(ROWS);
      assertThat(
              count(
                  jdbc,
                  "ax_instance i JOIN ax_task t ON t.task_id = i.task_id"
                      + " WHERE i.status = 'SUCCESS' AND i.instance_id = CONCAT(t.task_id, '@',"
                      + " i.due_at_ms) AND i.task_id"
                      + like))
          .as("one SUCCESS instance per task, id <task>@<due>")
          .isEqualTo(ROWS);
      assertThat(count(jdbc, "ax_instance_log WHERE instance_id" + like)).isEqualTo(ROWS * 4L);
      assertThat(
              count(
                  jdbc,
                  "ax_instance_log WHERE to_status = 'RUNNING' AND from_status = 'DISPATCHED'"
                      + " AND instance_id"
                      + like))
          .isEqualTo(ROWS);
      assertThat(AgedDatabase.auditRowsPerInstance(runtime.dataSource(), prefix + "-"))
          .isEqualTo(4.0);

      long cutoffMs = nowMs - retention.toMillis();
      assertThat(
              count(jdbc, "ax_instance WHERE finished_at_ms < " + cutoffMs + " AND task_id" + like))
          .as("10%% past the retention cutoff")
          .isEqualTo(ROWS / 10);
      assertThat(
              count(
                  jdbc,
                  "ax_instance WHERE finished_at_ms < "
                      + (cutoffMs - Duration.ofHours(1).toMillis())
                      + " AND task_id"
                      + like))
          .as("none more than an hour past it")
          .isZero();
      assertThat(
              count(
                  jdbc,
                  "ax_instance WHERE finished_at_ms > "
                      + (nowMs - Duration.ofMinutes(1).toMillis())
                      + " AND task_id"
                      + like))
          .as("none in the last minute")
          .isZero();
      long lastDay = nowMs - Duration.ofDays(1).toMillis();
      assertThat(
              count(jdbc, "ax_instance WHERE finished_at_ms >= " + lastDay + " AND task_id" + like))
          .as("evenly spread: about a seventh of the live rows in the last day")
          .isBetween(ROWS * 9L / 10 / 7 - 5, ROWS * 9L / 10 / 7 + 5);

      TableSizes after = TableSizes.read(runtime.dataSource());
      assertThat(after.of("ax_instance_log").bytes())
          .isGreaterThan(before.of("ax_instance_log").bytes());
      assertThat(after.of("ax_task").rows()).isGreaterThan(before.of("ax_task").rows());
    }
  }

  private static long count(Jdbc jdbc, String fromWhere) {
    return jdbc.queryLong("counting", "SELECT COUNT(*) FROM " + fromWhere, Jdbc.Binder.values());
  }
}
