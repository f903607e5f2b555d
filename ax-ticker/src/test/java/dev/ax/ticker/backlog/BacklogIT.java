package dev.ax.ticker.backlog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The backlog gauges against rows of known statuses and due times: counts per active status, the
 * age of the oldest instance due and not started (a SCHEDULED one due later does not count), counts
 * that stop at their cap, and NaN on a node that does not lead.
 */
@ExtendWith(AxInfraExtension.class)
class BacklogIT {

  @Test
  void countsActiveRowsAndAgesTheOldestDueNotStarted(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      long nowMs = runtime.clock().millis();
      List<NewTask> tasks = new ArrayList<>();
      tasks.add(TestTasks.newTask("due-late", nowMs - 60_000)); // SCHEDULED, a minute overdue
      tasks.add(TestTasks.newTask("due-later", nowMs + 3_600_000)); // SCHEDULED, due in an hour
      tasks.add(TestTasks.newTask("fired", nowMs - 30_000)); // DISPATCHED
      tasks.add(TestTasks.newTask("running", nowMs - 10_000));
      tasks.add(TestTasks.newTask("done", nowMs - 120_000));
      // Held by its task's overlap policy: waits by design, so it does not age the backlog.
      tasks.add(TestTasks.newTask("held", nowMs - 300_000));
      new TaskStore(runtime.dataSource()).create(tasks, "test", nowMs);
      RawSql.execute(
          runtime.dataSource(), "UPDATE ax_instance SET owner = 'ax-held' WHERE task_id = 'held'");
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_instance SET status = 'DISPATCHED' WHERE task_id = 'fired'");
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_instance SET status = 'RUNNING' WHERE task_id = 'running'");
      RawSql.execute(
          runtime.dataSource(), "UPDATE ax_instance SET status = 'SUCCESS' WHERE task_id = 'done'");
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      AtomicBoolean leads = new AtomicBoolean(true);
      Backlog backlog =
          new Backlog(
              new BacklogStore(runtime.dataSource()),
              runtime.clock(),
              () -> leads.get() ? Optional.of(new LeaseFence("ticker", "n1", 1)) : Optional.empty(),
              meters);

      backlog.refresh();

      assertThat(gauge(meters, "SCHEDULED")).isEqualTo(3);
      assertThat(gauge(meters, "DISPATCHED")).isEqualTo(1);
      assertThat(gauge(meters, "RUNNING")).isEqualTo(1);
      assertThat(gauge(meters, "PAUSED")).isZero();
      assertThat(meters.get("ax.backlog.oldest.due.age.ms").gauge().value())
          .as("the overdue SCHEDULED one, not the held, the DISPATCHED or the finished one")
          .isBetween(60_000.0, 120_000.0);
      assertThat(meters.get("ax.backlog.outbox").gauge().value()).isZero();

      SimpleMeterRegistry capped = new SimpleMeterRegistry();
      new Backlog(
              new BacklogStore(runtime.dataSource(), 1),
              runtime.clock(),
              () -> Optional.of(new LeaseFence("ticker", "n1", 1)),
              capped)
          .refresh();
      assertThat(gauge(capped, "SCHEDULED")).as("three rows, counted up to the cap").isEqualTo(1);
      assertThat(gauge(capped, "PAUSED")).isZero();

      leads.set(false);
      backlog.refresh();
      assertThat(gauge(meters, "SCHEDULED")).as("a standby reports nothing").isNaN();
      assertThat(meters.get("ax.backlog.oldest.due.age.ms").gauge().value()).isNaN();
    }
  }

  private static double gauge(SimpleMeterRegistry meters, String status) {
    return meters.get("ax.backlog.instances").tag("status", status).gauge().value();
  }
}
