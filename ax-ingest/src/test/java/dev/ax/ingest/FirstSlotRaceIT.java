package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ingest.TaskLifecycleStore.Request;
import dev.ax.ingest.TaskLifecycleStore.Result;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An UPDATE of a CRON task that lands while the ticker's transaction fires the very slot the UPDATE
 * takes as its new version's first one (found by {@code LifecycleModelIT} seed
 * -8592849243215210102): the UPDATE computes that slot from the history it read before the firing
 * committed, waits for the pending slots' locks, and must then go on from the slot after the fired
 * one, not end the chain (creating nothing, since the fired slot's id is taken).
 */
@ExtendWith(AxInfraExtension.class)
class FirstSlotRaceIT {

  /** A whole hour (UTC), in the future. */
  private static final long T0_MS = 1_900_000_800_000L;

  private static final long HOUR_MS = 3_600_000L;
  private static final long NOW_MS = T0_MS - 300_000L;
  private static final String HOURLY = "0 0 * * * ?";

  @Test
  void anUpdateWaitingForAFiringGoesOnFromTheSlotAfterIt(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      LifecycleRows rows = new LifecycleRows(runtime.dataSource());
      TaskUpdateStore store = new TaskUpdateStore(runtime.dataSource(), new FireTimes());
      String taskId = "u-race";
      String slot = rows.create(cron(taskId), T0_MS, NOW_MS - 60_000L);
      String next = InstanceIds.of(taskId, T0_MS + HOUR_MS);

      CompletableFuture<Result> update;
      try (Connection firing = runtime.dataSource().getConnection()) {
        firing.setAutoCommit(false);
        try (Statement statement = firing.createStatement()) {
          // As the ticker's mark: the slot DISPATCHED, uncommitted.
          assertThat(
                  statement.executeUpdate(
                      "UPDATE ax_instance SET status = 'DISPATCHED', dispatched_at_ms = "
                          + NOW_MS
                          + " WHERE instance_id = '"
                          + slot
                          + "'"))
              .isOne();
        }
        update = CompletableFuture.supplyAsync(() -> store.update(request(taskId), cron(taskId)));
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> lockWaits(runtime) > 0 || update.isDone());
        firing.commit();
      }

      assertThat(update.get()).isInstanceOf(Result.Applied.class);
      assertThat(rows.statuses(taskId))
          .as("the fired slot stays, and the chain goes on from the slot after it")
          .containsOnly(entry(slot, "DISPATCHED"), entry(next, "SCHEDULED"));
      assertThat(rows.versions(taskId)).containsEntry(next, 2);
    }
  }

  private static long lockWaits(TestRuntime runtime) throws Exception {
    try (Connection connection = runtime.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery(
                "SELECT COUNT(*) FROM information_schema.INNODB_TRX"
                    + " WHERE trx_state = 'LOCK WAIT'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static TaskSpec cron(String taskId) {
    return TestTasks.noop(taskId, new Trigger.Cron(HOURLY, ZoneOffset.UTC));
  }

  private static Request request(String taskId) {
    return new Request("u-1", taskId, null, null, "trace", "test", NOW_MS, false);
  }
}
