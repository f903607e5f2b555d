package dev.ax.common.store;

import static dev.ax.common.testing.TestTasks.newTask;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A ONCE task becomes ENDED in the transaction in which its last live instance becomes terminal,
 * and only then: not while another instance of it is live, not when it is PAUSED, never for a
 * periodic task. Its group's live count leaves it out; a replay, RUN_NOW or UPDATE makes it ACTIVE
 * again ({@link OneShotEnd#reactivate}, exercised here; the lifecycle and replay paths in their
 * modules' ITs).
 */
@ExtendWith(AxInfraExtension.class)
class OneShotEndIT {

  @RegisterExtension final StoreFixture store;

  OneShotEndIT(AxTestEnv env) {
    store = StoreFixture.open(env);
  }

  @Test
  void aBatchMoveToATerminalStatusEndsTheOneShotTasksLeftWithoutALiveInstance() throws Exception {
    TaskSpec cron = TestTasks.noop("cron", new Trigger.Cron("0 0 * * * ?", ZoneId.of("UTC")));
    store
        .tasks()
        .create(
            List.of(
                newTask("once", 1000),
                newTask("two-runs", 1000),
                newTask("paused", 1000),
                new NewTask(cron, "trace", 1000)),
            "test",
            1);
    sql("UPDATE ax_task SET state = 'PAUSED' WHERE task_id = 'paused'");
    // A second live instance of "two-runs" (as a RUN_NOW makes): its task stays ACTIVE.
    Transactions.inTransaction(
        store.runtime().dataSource(),
        "a second instance",
        connection ->
            InstanceInserts.insert(
                connection,
                List.of(
                    new NewInstance(
                        "two-runs@run:x", "two-runs", 1, 2000, "t", "run now", null, true)),
                "test",
                1));

    List<String> moved =
        BatchMover.move(
            store.runtime().dataSource(),
            "instance_id",
            List.of("once@1000", "two-runs@1000", "paused@1000", "cron@1000"),
            skip(),
            50);

    assertThat(moved).hasSize(4);
    assertThat(stateOf("once")).isEqualTo("ENDED");
    assertThat(updatedAtOf("once")).isEqualTo(50);
    assertThat(stateOf("two-runs")).as("another instance still live").isEqualTo("ACTIVE");
    assertThat(stateOf("paused")).as("a pause stays visible").isEqualTo("PAUSED");
    assertThat(stateOf("cron")).as("periodic").isEqualTo("ACTIVE");
  }

  @Test
  void theEndCommitsOrRollsBackWithTheMoveThatCausedIt() throws Exception {
    store.tasks().create(List.of(newTask("once", 1000)), "test", 1);

    assertThatThrownBy(
            () ->
                new Jdbc(store.runtime().dataSource())
                    .inPacketTransaction(
                        "failing on purpose",
                        tx -> {
                          tx.move("instance_id", List.of("once@1000"), skip(), 50, false);
                          try (PreparedStatement read =
                              tx.connection()
                                  .prepareStatement(
                                      "SELECT state FROM ax_task WHERE task_id = 'once'")) {
                            ResultSet rs = read.executeQuery();
                            rs.next();
                            assertThat(rs.getString(1))
                                .as("inside the move's transaction")
                                .isEqualTo("ENDED");
                          }
                          throw new IllegalStateException("boom");
                        }))
        .hasMessage("boom");

    assertThat(stateOf("once")).isEqualTo("ACTIVE");
    assertThat(store.instances().find("once@1000").get().status())
        .isEqualTo(InstanceStatus.SCHEDULED);
  }

  @Test
  void aFailedAttemptMadeDeadEndsItsTaskAndOneLeftToRetryDoesNot() throws Exception {
    store.tasks().create(List.of(newTask("dead", 1000), newTask("retried", 1000)), "test", 1);
    sql("UPDATE ax_instance SET status = 'FAILED', attempt = 3");

    Transactions.inTransaction(
        store.runtime().dataSource(),
        "following up",
        connection -> {
          FailureFollowUps.record(
              connection,
              List.of(
                  new Outcome(
                      "dead@1000",
                      "dead",
                      3,
                      InstanceStatus.FAILED,
                      "boom",
                      40,
                      new AfterFailure.Dead("no attempts left")),
                  new Outcome(
                      "retried@1000",
                      "retried",
                      3,
                      InstanceStatus.FAILED,
                      "boom",
                      40,
                      new AfterFailure.Retry(5000, "backoff"))),
              "test",
              60);
          return null;
        });

    assertThat(stateOf("dead")).isEqualTo("ENDED");
    assertThat(stateOf("retried")).as("RETRYING is live").isEqualTo("ACTIVE");
  }

  @Test
  void theLiveCountLeavesEndedTasksOutAndReactivationBringsThemBack() throws Exception {
    store
        .tasks()
        .create(List.of(newTask("a", 1000), newTask("b", 1000), newTask("c", 1000)), "test", 1);
    sql("UPDATE ax_task SET state = 'PAUSED' WHERE task_id = 'b'");
    BatchMover.move(
        store.runtime().dataSource(), "instance_id", List.of("a@1000", "c@1000"), skip(), 50);
    assertThat(stateOf("a")).isEqualTo("ENDED");

    assertThat(store.tasks().countActiveByGroup(List.of("default", "none")))
        .as("b is PAUSED: live")
        .isEqualTo(Map.of("default", 1L));

    boolean reactivated =
        Transactions.inTransaction(
            store.runtime().dataSource(),
            "reactivating",
            connection -> OneShotEnd.reactivate(new JdbcTransaction(connection), "a", 70));
    boolean notEnded =
        Transactions.inTransaction(
            store.runtime().dataSource(),
            "reactivating",
            connection -> OneShotEnd.reactivate(new JdbcTransaction(connection), "b", 70));
    assertThat(reactivated).isTrue();
    assertThat(notEnded).isFalse();
    assertThat(stateOf("a")).isEqualTo("ACTIVE");
    assertThat(stateOf("b")).isEqualTo("PAUSED");
    assertThat(store.tasks().countActiveByGroup(List.of("default"))).containsEntry("default", 2L);
  }

  /**
   * The live count is a range of {@code ax_task_group_active}, read from the index alone: its cost
   * follows the group's live tasks, however many ENDED ones its history holds.
   */
  @Test
  void theLiveCountReadsAnIndexRangeNotTheGroupsHistory() throws Exception {
    List<NewTask> many = new java.util.ArrayList<>();
    for (int i = 0; i < 300; i++) {
      many.add(newTask("h-" + i, 1000));
    }
    store.tasks().create(many, "test", 1);
    sql("UPDATE ax_task SET state = 'ENDED' WHERE task_id <> 'h-7'");
    sql("ANALYZE TABLE ax_task");

    List<String> plan = new java.util.ArrayList<>();
    try (Connection connection = store.runtime().dataSource().getConnection();
        PreparedStatement explain =
            connection.prepareStatement(
                "EXPLAIN SELECT task_group, COUNT(*) FROM ax_task WHERE task_group IN ('default')"
                    + " AND state IN ('ACTIVE', 'PAUSED') GROUP BY task_group");
        ResultSet rs = explain.executeQuery()) {
      while (rs.next()) {
        plan.add(rs.getString("type") + " " + rs.getString("key") + " " + rs.getString("Extra"));
      }
    }

    assertThat(plan)
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .startsWith("range ax_task_group_active")
        .contains("Using index");
    assertThat(store.tasks().countActiveByGroup(List.of("default")))
        .isEqualTo(Map.of("default", 1L));

    // The end a batch move appends to its packet reaches the tasks by primary key, never by a scan.
    sql("UPDATE ax_instance SET batch_token = 'token' WHERE instance_id = 'h-7@1000'");
    String in = "(?)";
    List<String> endPlan = new java.util.ArrayList<>();
    try (Connection connection = store.runtime().dataSource().getConnection();
        PreparedStatement explain =
            connection.prepareStatement(
                "EXPLAIN " + OneShotEnd.afterMoveSql("instance_id", in).substring(1))) {
      explain.setString(1, "h-7@1000");
      explain.setString(2, "token");
      explain.setLong(3, 5);
      try (ResultSet rs = explain.executeQuery()) {
        while (rs.next()) {
          endPlan.add(
              rs.getString("table") + " " + rs.getString("type") + " " + rs.getString("key"));
        }
      }
    }
    assertThat(endPlan)
        .as("%s", endPlan)
        .anyMatch(row -> row.startsWith("t eq_ref PRIMARY") || row.startsWith("t const PRIMARY"))
        .contains("l ref ax_instance_task")
        .noneMatch(row -> row.contains(" ALL") && !row.startsWith("<derived"));
  }

  private static BatchMove<String> skip() {
    return BatchMove.from(InstanceStatus.SCHEDULED)
        .<String>to(InstanceStatus.SKIPPED)
        .set("finished_at_ms = ?", 50)
        .readBack("instance_id", rs -> rs.getString(1))
        .audit("test", "misfire");
  }

  private String stateOf(String taskId) throws SQLException {
    return (String) column("state", taskId);
  }

  private long updatedAtOf(String taskId) throws SQLException {
    return ((Number) column("updated_at_ms", taskId)).longValue();
  }

  private Object column(String column, String taskId) throws SQLException {
    try (Connection connection = store.runtime().dataSource().getConnection();
        PreparedStatement read =
            connection.prepareStatement("SELECT " + column + " FROM ax_task WHERE task_id = ?")) {
      read.setString(1, taskId);
      try (ResultSet rs = read.executeQuery()) {
        assertThat(rs.next()).as("task %s", taskId).isTrue();
        return rs.getObject(1);
      }
    }
  }

  private void sql(String statement) throws SQLException {
    try (Connection connection = store.runtime().dataSource().getConnection();
        PreparedStatement update = connection.prepareStatement(statement)) {
      update.execute();
    }
  }
}
