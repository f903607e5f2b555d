package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.store.NewTask;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ax requeue}: 1,000 instances left DISPATCHED with their due events lost (and nothing to
 * emit them again for an hour) are moved back to SCHEDULED through the CLI, announced, fired again
 * by the ticker, and each runs exactly once, with an audit row for its requeue.
 */
@ExtendWith(AxInfraExtension.class)
class RequeueIT {

  private static final int STUCK = 1000;

  @Test
  void requeuedDispatchedInstancesRunOnceEach(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages =
            RunningStages.on(runtime, "node-1")
                .ticker(Map.of("AX_REAPER_UNCLAIMED_AFTER", "1h"))
                .dispatcher();
        CliRun.Target cli = CliRun.pointAt(env, runtime)) {
      runtime.awaitGroupsAssigned(1, "dispatcher");
      LeaseStore leases = new LeaseStore(runtime.dataSource());
      await().atMost(Duration.ofSeconds(30)).until(() -> leases.newestEpoch("ticker") > 0);
      long nowMs = runtime.clock().millis();
      long farMs = nowMs + Duration.ofDays(1).toMillis(); // beyond the ticker's horizon
      List<NewTask> tasks = new ArrayList<>();
      for (int i = 0; i < STUCK; i++) {
        tasks.add(
            new NewTask(
                TestTasks.spec(
                    "stuck-" + i,
                    "stuck",
                    Trigger.Once.after(Duration.ZERO),
                    ExecutorSpec.inProcess("noop"),
                    Duration.ofSeconds(5),
                    new RetryPolicy(0, Duration.ofSeconds(1), Duration.ofSeconds(60), true),
                    Map.of()),
                "trace-" + i,
                farMs));
      }
      new TaskStore(runtime.dataSource()).create(tasks, "test", nowMs);
      // As the current leader's firing leaves them when its due events are lost: DISPATCHED,
      // due now, at its epoch (so no new leader adopts them), and nothing emits them again.
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_instance SET status = 'DISPATCHED', due_at_ms = "
              + nowMs
              + ", dispatched_at_ms = "
              + nowMs
              + ", epoch = "
              + leases.newestEpoch("ticker")
              + " WHERE task_id LIKE 'stuck-%'");
      Jdbc jdbc = new Jdbc(runtime.dataSource());
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(5))
          .until(() -> count(jdbc, "DISPATCHED") == STUCK);
      long stuck = STUCK;

      CliRun requeue =
          CliRun.ax(
              "requeue",
              "--group",
              "stuck",
              "--status",
              "DISPATCHED",
              "--reason",
              "lost after the dispatch switch",
              "--rate",
              "5000");
      assertThat(requeue.exitCode()).as(requeue.out() + requeue.err()).isZero();
      assertThat(requeue.out()).contains(stuck + " instance(s) of group stuck requeued");

      await().atMost(Duration.ofSeconds(60)).until(() -> count(jdbc, "SUCCESS") == STUCK);
      assertThat(
              jdbc.queryLong(
                  "counting",
                  "SELECT COUNT(*) FROM ax_instance WHERE task_id LIKE 'stuck-%' AND attempt <> 1",
                  Jdbc.Binder.values()))
          .as("each ran once")
          .isZero();
      assertThat(
              jdbc.queryLong(
                  "counting",
                  "SELECT COUNT(*) FROM ax_instance_log WHERE task_id LIKE 'stuck-%'"
                      + " AND from_status = 'DISPATCHED' AND to_status = 'SCHEDULED'"
                      + " AND reason LIKE 'requeued by %: lost after the dispatch switch'",
                  Jdbc.Binder.values()))
          .as("an audit row per requeued instance")
          .isEqualTo(stuck);
    }
  }

  private static long count(Jdbc jdbc, String status) {
    return jdbc.queryLong(
        "counting",
        "SELECT COUNT(*) FROM ax_instance WHERE task_id LIKE 'stuck-%' AND status = ?",
        Jdbc.Binder.values(status));
  }
}
