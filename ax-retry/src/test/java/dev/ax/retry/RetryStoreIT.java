package dev.ax.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.NewTask;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The retry stage's SQL ({@link RetryStore}) against a real MySQL-protocol server: a retry whose
 * backoff is over is dispatched only if its task is ACTIVE, read under the task's lock in the
 * transaction of the move, so a lifecycle command committed before it always wins.
 */
@ExtendWith(AxInfraExtension.class)
class RetryStoreIT {

  @RegisterExtension final StoreFixture store;

  RetryStoreIT(AxTestEnv env) {
    store = StoreFixture.open(env);
  }

  /** Creates a one-shot task whose first attempt failed, its retry due at {@code dueMs}. */
  private long retryingTask(String taskId, long dueMs) {
    long seq =
        store
            .tasks()
            .create(List.of(new NewTask(TestTasks.onceNoop(taskId), "trace", dueMs)), "test", dueMs)
            .seqByInstanceId()
            .values()
            .iterator()
            .next();
    new Jdbc(store.runtime().dataSource())
        .inTransaction(
            "mark a retry due",
            tx ->
                tx.update(
                    "UPDATE ax_instance SET status = 'RETRYING', attempt = 1,"
                        + " next_attempt_at_ms = ? WHERE task_id = ?",
                    Jdbc.Binder.values(dueMs, taskId)));
    return seq;
  }

  private InstanceRow instanceOf(String taskId) {
    return store.instances().findByTask(taskId).get(0);
  }

  /**
   * One batch of four retries, each task in another state: dispatched, held PAUSED, CANCELLED
   * twice, each with its audit row; a retry not due yet stays RETRYING.
   */
  @Test
  void eachRetryMovesAsItsTasksStateSays() {
    long nowMs = 10_000;
    long active = retryingTask("r-active", nowMs);
    long paused = retryingTask("r-paused", nowMs);
    long cancelled = retryingTask("r-cancelled", nowMs);
    long deleted = retryingTask("r-deleted", nowMs);
    long notDue = retryingTask("r-later", nowMs + 1);
    setState("r-paused", "PAUSED");
    setState("r-cancelled", "CANCELLED");
    setState("r-deleted", "DELETED");

    List<DueInstance> dispatched =
        new RetryStore(store.runtime().dataSource())
            .dispatchRetries(List.of(active, paused, cancelled, deleted, notDue), "retry-1", nowMs);

    assertThat(dispatched).extracting(DueInstance::taskId).containsExactly("r-active");
    assertThat(instanceOf("r-active").status()).isEqualTo(InstanceStatus.DISPATCHED);
    assertThat(instanceOf("r-paused").status()).isEqualTo(InstanceStatus.PAUSED);
    assertThat(instanceOf("r-cancelled").status()).isEqualTo(InstanceStatus.CANCELLED);
    assertThat(instanceOf("r-deleted").status()).isEqualTo(InstanceStatus.CANCELLED);
    assertThat(instanceOf("r-later").status()).isEqualTo(InstanceStatus.RETRYING);
  }

  /**
   * A PAUSE that commits while the retry's move waits is not overtaken. The PAUSE here follows the
   * lifecycle commands' protocol (the task's row locked exclusively, its state changed, then the
   * task's instance rows locked) and holds them until the retry's move is seen waiting: the moment
   * a real PAUSE's locking read passes the RETRYING row, made long. The move used to read the
   * task's state without a lock, before its wait, and dispatched the retry of a paused task.
   */
  @Test
  void aPauseCommittedWhileTheMoveWaitsHoldsTheRetryPaused() throws Exception {
    long nowMs = 10_000;
    long seq = retryingTask("r-raced", nowMs);
    ExecutorService retryThread = Executors.newSingleThreadExecutor();
    try (Connection pause = store.runtime().dataSource().getConnection()) {
      pause.setAutoCommit(false);
      run(pause, "SELECT state FROM ax_task WHERE task_id = 'r-raced' FOR UPDATE");
      run(pause, "UPDATE ax_task SET state = 'PAUSED' WHERE task_id = 'r-raced'");
      run(pause, "SELECT status FROM ax_instance WHERE task_id = 'r-raced' FOR UPDATE");

      Future<List<DueInstance>> dispatch =
          retryThread.submit(
              () ->
                  new RetryStore(store.runtime().dataSource())
                      .dispatchRetries(List.of(seq), "retry-1", nowMs));
      await().atMost(Duration.ofSeconds(30)).until(() -> lockWaits() >= 1 || dispatch.isDone());
      pause.commit();

      assertThat(dispatch.get(30, TimeUnit.SECONDS)).as("dispatched").isEmpty();
    } finally {
      retryThread.shutdownNow();
    }
    assertThat(instanceOf("r-raced").status()).isEqualTo(InstanceStatus.PAUSED);
    assertThat(instanceOf("r-raced").attempt()).isEqualTo(1);
  }

  private void setState(String taskId, String state) {
    new Jdbc(store.runtime().dataSource())
        .inTransaction(
            "set the state of " + taskId,
            tx ->
                tx.update(
                    "UPDATE ax_task SET state = ? WHERE task_id = ?",
                    Jdbc.Binder.values(state, taskId)));
  }

  /** Transactions of this server waiting for a lock now. */
  private long lockWaits() {
    return new Jdbc(store.runtime().dataSource())
        .queryLong(
            "counting lock waits",
            "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'",
            Jdbc.Binder.values());
  }

  private static void run(Connection connection, String sql) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.execute();
    }
  }
}
