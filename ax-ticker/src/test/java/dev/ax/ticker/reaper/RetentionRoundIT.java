package dev.ax.ticker.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.store.Jdbc;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SettableClock;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ticker.reaper.RetentionStore.Batch;
import dev.ax.ticker.reaper.RetentionStore.Cursor;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Retention's rounds on a real database, driven step by step: each kind of row goes only when it is
 * older than the retention and terminal, with its children; live rows never; a batch resumes after
 * its cursor; every batch statement reads an index range.
 */
@ExtendWith(AxInfraExtension.class)
class RetentionRoundIT {

  private static final Duration RETENTION = Duration.ofHours(1);

  @Test
  void eachKindGoesOnlyWhenOldAndTerminalWithItsChildren(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      long nowMs = runtime.clock().millis();
      long oldMs = nowMs - Duration.ofHours(2).toMillis();
      Seed seed = new Seed(runtime, oldMs, nowMs);
      seed.tasks(
          "done-0",
          "done-1",
          "done-2",
          "done-3",
          "done-4",
          "skipped-0",
          "cancelled-0",
          "recent-0",
          "running-0",
          "dead-open",
          "dead-none",
          "dead-discarded",
          "replayed-ok",
          "paused-0",
          "gone-0",
          "gone-1",
          "gone-2",
          "ended-0",
          "ended-1",
          "ended-live",
          "deleted-lately");
      seed.status("SUCCESS", oldMs, "task_id LIKE 'done-%' OR task_id IN ('replayed-ok')");
      seed.status("SKIPPED", oldMs, "task_id = 'skipped-0'");
      seed.status("CANCELLED", oldMs, "task_id = 'cancelled-0' OR task_id LIKE 'gone-%'");
      seed.status("CANCELLED", oldMs, "task_id = 'deleted-lately'");
      seed.status("SUCCESS", nowMs, "task_id = 'recent-0'");
      seed.status("RUNNING", oldMs, "task_id IN ('running-0', 'ended-live')");
      seed.status("DEAD", oldMs, "task_id LIKE 'dead-%'");
      seed.status("PAUSED", oldMs, "task_id = 'paused-0'");
      seed.status("SUCCESS", oldMs, "task_id IN ('ended-0', 'ended-1')");
      seed.letter("dead-open", "OPEN");
      seed.letter("dead-discarded", "DISCARDED");
      seed.letter("replayed-ok", "REPLAYED");
      seed.taskState("DELETED", oldMs, "task_id LIKE 'gone-%'");
      seed.taskState("ENDED", oldMs, "task_id LIKE 'ended-%'");
      seed.taskState("DELETED", nowMs, "task_id = 'deleted-lately'");
      // Children of the removed tasks, recent themselves: they go with their task.
      seed.command("gone-0", "c-1", nowMs);
      seed.command("ended-0", "c-1", nowMs);
      seed.version("gone-0", 0, nowMs);
      seed.edge("gone-0", "done-1");
      // An edge naming a terminal task as upstream is its downstream's: it stays, and so does
      // that upstream task, whose id a new task could otherwise take and trigger the downstream.
      seed.edge("paused-0", "gone-1");
      // Superseded versions: old and unused (goes), old but run by an instance (stays), recent.
      seed.version("paused-0", -1, oldMs);
      seed.version("dead-open", 1, oldMs);
      seed.version("running-0", -1, nowMs);
      // Applied commands and operator log rows of live tasks: old ones go, recent stay.
      seed.command("paused-0", "c-old", oldMs);
      seed.command("paused-0", "c-new", nowMs);
      seed.operatorLog("old", oldMs);
      seed.operatorLog("new", nowMs);
      seed.runOutputOfEveryInstance();

      explainEveryBatchStatement(runtime, nowMs - RETENTION.toMillis());

      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      Retention retention =
          new Retention(
              new RetentionStore(runtime.dataSource()),
              new SettableClock(Instant.ofEpochMilli(nowMs)),
              RETENTION,
              2,
              meters);
      Retention.Step first = retention.step();
      assertThat(first.caughtUp()).isFalse();
      assertThat(retention.overdueMs())
          .as("the oldest deletable row became so an hour ago")
          .isBetween(Duration.ofMinutes(59).toMillis(), Duration.ofMinutes(61).toMillis());
      int steps = 1;
      while (!retention.step().caughtUp()) {
        steps++;
        assertThat(steps).as("a cycle ends").isLessThan(100);
      }
      assertThat(steps).as("batches of two, in turns").isGreaterThan(10);
      assertThat(retention.overdueMs()).isZero();

      assertThat(seed.instancesOf())
          .containsOnlyKeys(
              "recent-0", "running-0", "dead-open", "dead-none", "paused-0", "ended-live");
      assertThat(seed.ids("SELECT task_id FROM ax_instance_log"))
          .as("audit rows went with their instances")
          .containsOnly(
              "recent-0", "running-0", "dead-open", "dead-none", "paused-0", "ended-live");
      assertThat(seed.ids("SELECT task_id FROM ax_run_output"))
          .as("run output went with its instances")
          .containsOnly(
              "recent-0", "running-0", "dead-open", "dead-none", "paused-0", "ended-live");
      assertThat(seed.ids("SELECT task_id FROM ax_dead_letter")).containsExactly("dead-open");
      assertThat(seed.ids("SELECT task_id FROM ax_task WHERE state IN ('DELETED', 'ENDED')"))
          .as("terminal tasks with an instance left, changed lately, or named upstream, stay")
          .containsExactlyInAnyOrder("ended-live", "deleted-lately", "gone-1");
      assertThat(seed.ids("SELECT task_id FROM ax_task WHERE task_id LIKE 'done-%'"))
          .as("live tasks stay, even with no instance left")
          .hasSize(5);
      assertThat(seed.ids("SELECT CONCAT(task_id, ':', command_id) FROM ax_task_command"))
          .containsExactly("paused-0:c-new");
      assertThat(seed.ids("SELECT CONCAT(task_id, ':', version) FROM ax_task_version"))
          .containsExactlyInAnyOrder("dead-open:1", "running-0:-1");
      assertThat(seed.ids("SELECT CONCAT(task_id, '>', upstream_task_id) FROM ax_task_dependency"))
          .containsExactly("paused-0>gone-1");
      assertThat(seed.ids("SELECT target FROM ax_operator_log")).containsExactly("new");
      assertThat(meters.get("ax.retention.deleted").tag("kind", "instances").counter().count())
          .isEqualTo(
              5 + 1 + 1 + 3 + 1 + 1 + 2
                  + 1); // done, skipped, cancelled, gone, dead, ok, ended, lately
      assertThat(meters.get("ax.retention.deleted").tag("kind", "tasks").counter().count())
          .isEqualTo(4);
      assertThat(meters.get("ax.retention.deleted").tag("kind", "deadletters").counter().count())
          .isEqualTo(2);
    }
  }

  @Test
  void aBatchResumesAfterItsCursorAndPassesOverRowsItMustLeave(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      long nowMs = runtime.clock().millis();
      long oldMs = nowMs - Duration.ofHours(2).toMillis();
      long cutoffMs = nowMs - RETENTION.toMillis();
      Seed seed = new Seed(runtime, oldMs, nowMs);
      seed.tasks("a", "b", "c", "d", "e", "f");
      for (String id : List.of("a", "b", "c", "d", "e", "f")) {
        seed.status("SUCCESS", oldMs, "task_id = '" + id + "'");
        RawSql.execute(
            runtime.dataSource(),
            "UPDATE ax_instance SET due_at_ms = "
                + (oldMs + id.charAt(0))
                + " WHERE task_id = '"
                + id
                + "'");
      }
      RetentionStore store = new RetentionStore(runtime.dataSource());
      Batch first = store.deleteInstances("SUCCESS", cutoffMs, Cursor.START, 2);
      assertThat(first.read()).isEqualTo(2);
      assertThat(seed.instancesOf()).containsOnlyKeys("c", "d", "e", "f");
      // A cursor past "d" (as if "c" and "d" had been left): the batch starts at "e".
      Cursor afterD = new Cursor(oldMs + 'd', seed.instancesOf().get("d"), 0);
      Batch second = store.deleteInstances("SUCCESS", cutoffMs, afterD, 5);
      assertThat(second.read()).as("the end of the range").isEqualTo(2);
      assertThat(seed.instancesOf()).containsOnlyKeys("c", "d");

      // DEAD: the open letter's instance comes first and is passed over, not read again.
      seed.tasks("dead-open", "dead-closed");
      seed.status("DEAD", oldMs, "task_id LIKE 'dead-%'");
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_instance SET due_at_ms = due_at_ms - 10 WHERE task_id = 'dead-open'");
      seed.letter("dead-open", "OPEN");
      seed.letter("dead-closed", "DISCARDED");
      Batch dead = store.deleteInstances("DEAD", cutoffMs, Cursor.START, 1);
      assertThat(dead.read()).isEqualTo(1);
      assertThat(dead.next().key()).startsWith("dead-closed");
      assertThat(seed.instancesOf()).containsKey("dead-open").doesNotContainKey("dead-closed");
      assertThat(store.deleteInstances("DEAD", cutoffMs, dead.next(), 1).read()).isZero();
    }
  }

  /**
   * EXPLAIN of each batch's read and of the overdue gauge's: an index range of its table, no full
   * scan, no filesort. A derived table (the gauge's probe of the oldest tasks) is bounded by its
   * LIMIT; its inner step, over the growing table, is checked.
   */
  private static void explainEveryBatchStatement(TestRuntime runtime, long cutoffMs)
      throws Exception {
    Map<String, List<Object>> statements = new LinkedHashMap<>();
    for (String status : List.of("SUCCESS", "CANCELLED", "SKIPPED", "DEAD")) {
      statements.put(
          RetentionSql.instancesSql(status), List.of(status, cutoffMs, 0L, 0L, "", cutoffMs, 500));
    }
    statements.put(RetentionSql.tasksSql(), List.of("DELETED", cutoffMs, 0L, 0L, "", 500));
    statements.put(RetentionSql.versionsSql(), List.of(cutoffMs, 0L, 0L, "", "", 0, 500));
    // The locking re-reads of a batch's candidates: by primary key.
    statements.put(
        RetentionSql.lockInstancesSql("DEAD", "?,?"),
        List.of("done-0@x", "done-1@x", "DEAD", cutoffMs, cutoffMs));
    statements.put(
        RetentionSql.lockTasksSql("?,?"), List.of("gone-0", "gone-1", "DELETED", cutoffMs));
    statements.put(
        RetentionSql.lockVersionsSql("(v.task_id = ? AND v.version = ?)"),
        List.of("paused-0", -1, cutoffMs));
    // The deletes by a batch's instance ids: by the key that leads each table's index.
    statements.put(
        RetentionSql.deleteInSql("ax_run_output", "instance_id", "?,?"),
        List.of("done-0@x", "done-1@x"));
    statements.put(
        RetentionSql.deleteInSql("ax_instance_log", "instance_id", "?,?"),
        List.of("done-0@x", "done-1@x"));
    statements.put(RetentionSql.olderRowsSql(RetentionKind.COMMANDS), List.of(cutoffMs, 500));
    statements.put(RetentionSql.olderRowsSql(RetentionKind.OPERATOR_LOG), List.of(cutoffMs, 500));
    // The overdue gauge's reads: the first entry of each range.
    statements.put(RetentionSql.OLDEST_INSTANCE_SQL, List.of("SUCCESS", cutoffMs, cutoffMs));
    statements.put(RetentionSql.OLDEST_TASK_SQL, List.of("DELETED", cutoffMs));
    statements.put(RetentionSql.OLDEST_OPERATOR_LOG_SQL, List.of(cutoffMs));
    statements.put(RetentionSql.OLDEST_COMMAND_SQL, List.of(cutoffMs));
    try (Connection connection = runtime.dataSource().getConnection()) {
      for (Map.Entry<String, List<Object>> statement : statements.entrySet()) {
        String sql = statement.getKey().replace(" FOR UPDATE", "");
        try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + sql)) {
          for (int i = 0; i < statement.getValue().size(); i++) {
            explain.setObject(i + 1, statement.getValue().get(i));
          }
          try (ResultSet rs = explain.executeQuery()) {
            List<String> plan = new ArrayList<>();
            while (rs.next()) {
              if (rs.getString("table").startsWith("<derived")) {
                continue; // a bounded result the plan builds: its inner step is checked (LIMIT)
              }
              plan.add(
                  rs.getString("table")
                      + " type="
                      + rs.getString("type")
                      + " key="
                      + rs.getString("key")
                      + " extra="
                      + rs.getString("Extra"));
            }
            assertThat(plan)
                .as("plan of %s", sql)
                .isNotEmpty()
                .noneMatch(row -> row.contains("type=ALL"))
                .noneMatch(row -> row.contains("filesort"))
                .noneMatch(row -> row.contains("key=null"));
          }
        }
      }
    }
  }

  /** Rows as the pipeline, the CLI and the lifecycle commands would have left them. */
  private static final class Seed {
    private final TestRuntime runtime;
    private final long oldMs;
    private final long nowMs;

    Seed(TestRuntime runtime, long oldMs, long nowMs) {
      this.runtime = runtime;
      this.oldMs = oldMs;
      this.nowMs = nowMs;
    }

    void tasks(String... ids) {
      List<NewTask> tasks = new ArrayList<>();
      for (String id : ids) {
        tasks.add(new NewTask(TestTasks.onceNoop(id), "trace", oldMs));
      }
      new TaskStore(runtime.dataSource()).create(tasks, "test", oldMs);
    }

    void status(String status, long atMs, String where) throws Exception {
      sql(
          "UPDATE ax_instance SET status = '"
              + status
              + "', updated_at_ms = "
              + atMs
              + (status.equals("SUCCESS") ? ", finished_at_ms = " + atMs : "")
              + " WHERE "
              + where);
    }

    void taskState(String state, long atMs, String where) throws Exception {
      sql(
          "UPDATE ax_task SET state = '"
              + state
              + "', updated_at_ms = "
              + atMs
              + " WHERE "
              + where);
    }

    void letter(String taskId, String state) throws Exception {
      sql(
          "INSERT INTO ax_dead_letter (instance_id, task_id, task_group, task_snapshot,"
              + " attempts_json, state, created_at_ms, updated_at_ms) SELECT instance_id,"
              + " task_id, 'default', '{}', '[]', '"
              + state
              + "', "
              + oldMs
              + ", "
              + oldMs
              + " FROM ax_instance WHERE task_id = '"
              + taskId
              + "'");
    }

    void command(String taskId, String commandId, long atMs) throws Exception {
      sql(
          "INSERT INTO ax_task_command (command_id, task_id, command_type, trace_id, applied_by,"
              + " applied_at_ms) VALUES ('"
              + commandId
              + "', '"
              + taskId
              + "', 'UPDATE', 'trace', 'test', "
              + atMs
              + ")");
    }

    void version(String taskId, int version, long supersededAtMs) throws Exception {
      sql(
          "INSERT INTO ax_task_version (task_id, version, spec_json, superseded_at_ms) VALUES ('"
              + taskId
              + "', "
              + version
              + ", '{}', "
              + supersededAtMs
              + ")");
    }

    void edge(String taskId, String upstreamTaskId) throws Exception {
      sql(
          "INSERT INTO ax_task_dependency (task_id, upstream_task_id) VALUES ('"
              + taskId
              + "', '"
              + upstreamTaskId
              + "')");
    }

    void operatorLog(String target, long atMs) throws Exception {
      sql(
          "INSERT INTO ax_operator_log (actor, action, target, at_ms) VALUES ('op', 'switch', '"
              + target
              + "', "
              + atMs
              + ")");
    }

    /** Instance id by task id. */
    Map<String, String> instancesOf() {
      Map<String, String> ids = new LinkedHashMap<>();
      new Jdbc(runtime.dataSource())
          .query(
              "reading instances",
              "SELECT task_id, instance_id FROM ax_instance",
              Jdbc.Binder.values(),
              rs -> ids.put(rs.getString(1), rs.getString(2)));
      return ids;
    }

    List<String> ids(String select) {
      return new Jdbc(runtime.dataSource())
          .query("reading ids", select, Jdbc.Binder.values(), rs -> rs.getString(1));
    }

    /** One run output row of attempt 1 of every instance there is. */
    void runOutputOfEveryInstance() throws Exception {
      sql(
          "INSERT INTO ax_run_output (instance_id, attempt, task_id, status, started_at_ms,"
              + " finished_at_ms, output) SELECT instance_id, 1, task_id, 'SUCCESS', 0, 0,"
              + " 'HTTP 200' FROM ax_instance");
    }

    private void sql(String sql) throws Exception {
      RawSql.execute(runtime.dataSource(), sql);
    }

    long nowMs() {
      return nowMs;
    }
  }
}
