package dev.ax.common.store;

import static dev.ax.common.testing.TestTasks.newTask;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The end of one-shot tasks ({@link OneShotEnd}) locks the {@code ax_task} rows of ONCE tasks only:
 * with a periodic task's row held exclusively by another transaction (as a PAUSE holds it), the
 * move of that task's instance to a terminal status completes without waiting for it, in a batch
 * move's packet and in the follow-up that makes a failed attempt DEAD; a ONCE task's still ends.
 * One instance per move: the plan production sees (the moved rows first, the task rows by primary
 * key), where a move of several over a three-row task table may be planned as a scan that skips a
 * locked row it does not match without waiting. Each move runs in a session whose lock wait is
 * {@value #LOCK_WAIT_S} s, so a statement that waits for the held row fails fast instead of
 * hanging; the last test shows that it does.
 */
@ExtendWith(AxInfraExtension.class)
class OneShotEndLocksIT {

  private static final int LOCK_WAIT_S = 1;
  private static final String OWNER = "dispatcher-1";

  @RegisterExtension final StoreFixture store;

  OneShotEndLocksIT(AxTestEnv env) {
    store = StoreFixture.open(env);
  }

  @Test
  void aSuccessBatchOfAPeriodicTasksRunTakesNoLockOnItsTaskRow() throws Exception {
    createCronAndOnce();
    running("cron@1000", "once@1000", "rate@1000");

    try (Connection pause = heldTask("cron")) {
      assertThat(succeeded("cron@1000")).containsExactly("cron@1000");
    }
    try (Connection pause = heldTask("rate")) {
      assertThat(succeeded("rate@1000")).containsExactly("rate@1000");
    }
    assertThat(succeeded("once@1000")).containsExactly("once@1000");

    assertThat(stateOf("cron")).isEqualTo("ACTIVE");
    assertThat(stateOf("rate")).isEqualTo("ACTIVE");
    assertThat(stateOf("once")).as("a ONCE task still ends with its last run").isEqualTo("ENDED");
  }

  @Test
  void aDeadFollowUpOfAPeriodicTasksRunTakesNoLockOnItsTaskRow() throws Exception {
    createCronAndOnce();
    RawSql.execute(
        store.runtime().dataSource(), "UPDATE ax_instance SET status = 'FAILED', attempt = 3");

    try (Connection pause = heldTask("cron")) {
      followUp(dead("cron@1000", "cron"));
    }
    followUp(dead("once@1000", "once"));

    assertThat(store.instances().find("cron@1000").get().status()).isEqualTo(InstanceStatus.DEAD);
    assertThat(stateOf("cron")).isEqualTo("ACTIVE");
    assertThat(stateOf("once")).isEqualTo("ENDED");
  }

  /** The probe can fail: the end of a ONCE task waits for its held row, and gives up fast. */
  @Test
  void theEndOfAOneShotTaskStillTakesItsTaskRow() throws Exception {
    createCronAndOnce();
    running("once@1000");

    try (Connection pause = heldTask("once")) {
      assertThatThrownBy(() -> inShortWaitSession(tx -> moveToSuccess(tx, "once@1000")))
          .hasMessageContaining("Lock wait timeout");
    }

    assertThat(stateOf("once")).isEqualTo("ACTIVE");
    assertThat(store.instances().find("once@1000").get().status())
        .as("rolled back with its end")
        .isEqualTo(InstanceStatus.RUNNING);
  }

  private void createCronAndOnce() {
    TaskSpec cron = TestTasks.noop("cron", new Trigger.Cron("0 0 * * * ?", ZoneId.of("UTC")));
    TaskSpec rate = TestTasks.noop("rate", new Trigger.FixedRate(Duration.ofSeconds(1), null));
    store
        .tasks()
        .create(
            List.of(
                new NewTask(cron, "trace", 1000),
                new NewTask(rate, "trace", 1000),
                newTask("once", 1000)),
            "test",
            1);
  }

  private void running(String... instanceIds) throws SQLException {
    for (String instanceId : instanceIds) {
      RawSql.execute(
          store.runtime().dataSource(),
          "UPDATE ax_instance SET status = 'RUNNING', attempt = 1, owner = '"
              + OWNER
              + "' WHERE instance_id = '"
              + instanceId
              + "'");
    }
  }

  /** {@link #moveToSuccess} of {@code instanceId} in a short-wait session, committed. */
  private List<String> succeeded(String instanceId) throws SQLException {
    return inShortWaitSession(tx -> moveToSuccess(tx, instanceId));
  }

  /** RUNNING → SUCCESS as the dispatcher records a batch of successes, without committing. */
  private static List<String> moveToSuccess(Transaction tx, String... instanceIds)
      throws SQLException {
    return BatchMover.moveIn(
        tx,
        "instance_id",
        List.of(instanceIds),
        BatchMove.from(InstanceStatus.RUNNING)
            .<String>to(InstanceStatus.SUCCESS)
            .set("finished_at_ms = ?, last_error = NULL, lease_until_ms = NULL", 40)
            .where("attempt = 1 AND owner = ?", OWNER)
            .readBack("instance_id", rs -> rs.getString(1))
            .audit(OWNER, "completed"),
        50,
        false);
  }

  private void followUp(Outcome outcome) throws SQLException {
    inShortWaitSession(
        tx -> {
          tx.ensureBegun();
          FailureFollowUps.record(tx.connection(), List.of(outcome), OWNER, 60);
          return null;
        });
  }

  private static Outcome dead(String instanceId, String taskId) {
    return new Outcome(
        instanceId,
        taskId,
        3,
        InstanceStatus.FAILED,
        "boom",
        40,
        new AfterFailure.Dead("no attempts left"));
  }

  /**
   * A connection whose open transaction holds {@code taskId}'s row exclusively, as a lifecycle
   * command's does; closing it rolls back and frees the row.
   */
  private Connection heldTask(String taskId) throws SQLException {
    Connection connection = store.runtime().dataSource().getConnection();
    connection.setAutoCommit(false);
    try (PreparedStatement lock =
        connection.prepareStatement("SELECT state FROM ax_task WHERE task_id = ? FOR UPDATE")) {
      lock.setString(1, taskId);
      try (ResultSet rs = lock.executeQuery()) {
        assertThat(rs.next()).isTrue();
      }
    }
    return connection; // the pool rolls an open transaction back when it is closed
  }

  /**
   * Runs {@code work} in one transaction on a session whose lock wait is {@link #LOCK_WAIT_S}
   * seconds, committed if it returns and rolled back if it throws.
   */
  private <T> T inShortWaitSession(SqlWork<Transaction, T> work) throws SQLException {
    try (Connection session = store.runtime().dataSource().getConnection()) {
      setLockWait(session, Integer.toString(LOCK_WAIT_S));
      try {
        Transaction tx = new Transaction(session);
        try {
          T result = work.run(tx);
          tx.finish();
          return result;
        } catch (SQLException | RuntimeException e) {
          tx.rollbackQuietly(e);
          throw e;
        }
      } finally {
        setLockWait(session, "DEFAULT");
      }
    }
  }

  private static void setLockWait(Connection session, String seconds) throws SQLException {
    try (Statement set = session.createStatement()) {
      set.execute("SET SESSION innodb_lock_wait_timeout = " + seconds);
    }
  }

  private String stateOf(String taskId) throws SQLException {
    return store.tasks().find(taskId).orElseThrow().state().name();
  }
}
