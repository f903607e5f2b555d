package dev.ax.common.store;

import static dev.ax.common.testing.TestTasks.newTask;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The JDBC store against a real MySQL-protocol server. */
@ExtendWith(AxInfraExtension.class)
class StoreIT {

  @RegisterExtension final StoreFixture store;

  StoreIT(AxTestEnv env) {
    store = StoreFixture.open(env);
  }

  @Test
  void theEmbeddedDatabaseNeedsNoServerAdvice() {
    // An external server (AX_JDBC_URL) is configured by its operator, not by EmbeddedDatabase.
    org.junit.jupiter.api.Assumptions.assumeTrue(
        System.getProperty("AX_JDBC_URL") == null && System.getenv("AX_JDBC_URL") == null,
        "an external database server is in use");
    // innodb_autoinc_lock_mode=2: the audit writes of all stages do not queue on one table lock.
    assertThat(ServerSettings.advice(store.runtime().dataSource())).isEmpty();
  }

  @Test
  void createIsIdempotentOnTaskId() {
    List<CreateOutcome> first =
        store.tasks().create(List.of(newTask("a", 1000), newTask("b", 1000)), "test", 1).outcomes();
    CreateResult againResult =
        store.tasks().create(List.of(newTask("a", 2000), newTask("c", 1000)), "test", 2);
    List<CreateOutcome> again = againResult.outcomes();
    assertThat(againResult.seqByInstanceId()).containsOnlyKeys("c@1000");

    assertThat(first).containsExactly(CreateOutcome.CREATED, CreateOutcome.CREATED);
    assertThat(again).containsExactly(CreateOutcome.DUPLICATE, CreateOutcome.CREATED);
    assertThat(store.instances().findByTask("a"))
        .singleElement()
        .satisfies(row -> assertThat(row.dueAtMs()).isEqualTo(1000));
    assertThat(store.tasks().find("a")).get().satisfies(t -> assertThat(t.version()).isEqualTo(1));
  }

  @Test
  void aStoredSpecThatCannotBeReadAnyMoreReadsAsMissingAndTheOthersAreFound() throws Exception {
    store.tasks().create(List.of(newTask("broken", 1000), newTask("fine", 1000)), "test", 1);
    try (java.sql.Connection connection = store.runtime().dataSource().getConnection();
        java.sql.Statement statement = connection.createStatement()) {
      statement.executeUpdate(
          "UPDATE ax_task SET spec_json = '{\"trigger\":{\"type\":\"CRON\",\"expression\":"
              + "\"0 0 * * * ?\",\"zone\":\"Mars/Olympus\"}}' WHERE task_id = 'broken'");
    }

    assertThat(store.tasks().findAll(List.of("broken", "fine"))).containsOnlyKeys("fine");
    assertThat(store.tasks().find("broken")).isEmpty();
  }

  @Test
  void aFailedTransactionLeavesNothingAndTheConnectionUsable() throws Exception {
    assertThatThrownBy(
            () ->
                Transactions.inTransaction(
                    store.runtime().dataSource(),
                    "failing on purpose",
                    connection -> {
                      insertSwitch(connection, "rolled-back");
                      throw new IllegalStateException("boom");
                    }))
        .hasMessage("boom");
    Transactions.inTransaction(
        store.runtime().dataSource(),
        "committing",
        connection -> insertSwitch(connection, "committed"));
    assertThat(new SwitchStore(store.runtime().dataSource()).all().keySet())
        .contains("committed")
        .doesNotContain("rolled-back");
  }

  /** Inserts switch {@code name} (value "on") on {@code connection}; the rows inserted. */
  private static int insertSwitch(java.sql.Connection connection, String name)
      throws java.sql.SQLException {
    try (var statement =
        connection.prepareStatement(
            "INSERT INTO ax_switch (switch_name, switch_value, version, updated_by, updated_at_ms)"
                + " VALUES (?, 'on', 1, 'test', 1)")) {
      statement.setString(1, name);
      return statement.executeUpdate();
    }
  }

  @Test
  void theSpecCacheForgetsOneShotTasksOnceUsedAndKeepsPeriodicOnes() {
    NewTask once = newTask("one-shot", 100);
    TaskSpec cronSpec =
        TestTasks.noop(
            "every-second", new Trigger.Cron("0/1 * * * * ?", java.time.ZoneId.of("UTC")));
    store.tasks().create(List.of(once, new NewTask(cronSpec, "trace-cron", 1000)), "ingest-1", 10);
    TaskSpecCache cache = new TaskSpecCache(store.tasks(), 100);
    List<String> ids = List.of("one-shot", "every-second");
    Map<String, StoredTask> specs = cache.of(ids, id -> id, id -> 1);
    assertThat(specs).containsOnlyKeys(ids);
    assertThat(cache.unseen(ids)).isEmpty();

    cache.forgetOneShot(specs.values());

    assertThat(cache.unseen(ids)).containsExactly("one-shot");
    assertThat(cache.of(ids, id -> id, id -> 1)).as("read again when needed").containsOnlyKeys(ids);
  }
}
