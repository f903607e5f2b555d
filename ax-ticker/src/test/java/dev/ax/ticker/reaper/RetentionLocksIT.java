package dev.ax.ticker.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.DatabaseCoordinates;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ticker.reaper.RetentionStore.Batch;
import dev.ax.ticker.reaper.RetentionStore.Cursor;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Retention's batches lock only the rows they delete: with the row after their index range held by
 * an open transaction (a claim moving the first DISPATCHED instance to RUNNING, an ingest pausing a
 * task), each batch completes without waiting for it, and still deletes what is old and terminal. A
 * locking read of the range itself takes a next-key lock on the entry after it, and waits there.
 * Retention runs here on sessions whose lock wait is {@value #LOCK_WAIT_S} s, so a batch that waits
 * fails fast instead of hanging.
 */
@ExtendWith(AxInfraExtension.class)
class RetentionLocksIT {

  private static final int LOCK_WAIT_S = 1;
  private static final int LIMIT = 100;

  @Test
  void aBatchDoesNotWaitForTheHotRowAfterItsRange(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        HikariDataSource shortWait = shortLockWait(env.database())) {
      long nowMs = runtime.clock().millis();
      long oldMs = nowMs - Duration.ofHours(2).toMillis();
      long cutoffMs = nowMs - Duration.ofHours(1).toMillis();
      create(runtime, oldMs, "hot", "live", "old-done", "old-gone");
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_instance SET status = 'DISPATCHED', updated_at_ms = " + oldMs);
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_instance SET status = 'SUCCESS', finished_at_ms = "
              + oldMs
              + " WHERE task_id = 'old-done'");
      RawSql.execute(
          runtime.dataSource(), "DELETE FROM ax_instance WHERE task_id IN ('old-gone', 'live')");
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_task SET state = 'DELETED', updated_at_ms = "
              + oldMs
              + " WHERE task_id = 'old-gone'");
      RetentionStore store = new RetentionStore(shortWait);

      try (Connection claim =
              held(
                  runtime, "UPDATE ax_instance SET status = 'RUNNING'" + " WHERE task_id = 'hot'");
          Connection pause =
              held(
                  runtime,
                  "UPDATE ax_task SET state = 'PAUSED', updated_at_ms = "
                      + nowMs
                      + " WHERE task_id = 'live'")) {
        for (String status : List.of("CANCELLED", "DEAD", "SKIPPED")) {
          assertThat(store.deleteInstances(status, cutoffMs, Cursor.START, LIMIT).read())
              .as("%s instances: none old, and no wait for the row after the range", status)
              .isZero();
        }
        Batch done = store.deleteInstances("SUCCESS", cutoffMs, Cursor.START, LIMIT);
        assertThat(done.deleted().get(RetentionKind.INSTANCES))
            .as("the old SUCCESS instance goes")
            .isEqualTo(1);
        for (String state : List.of("ENDED", "DELETED")) {
          store.deleteTasks(state, cutoffMs, Cursor.START, LIMIT);
        }
      }
      assertThat(count(runtime, "SELECT COUNT(*) FROM ax_task WHERE task_id = 'old-gone'"))
          .as("the old DELETED task with no instance left goes")
          .isZero();
      assertThat(count(runtime, "SELECT COUNT(*) FROM ax_task WHERE task_id IN ('hot', 'live')"))
          .as("the held rows stay")
          .isEqualTo(2);
    }
  }

  private static void create(TestRuntime runtime, long atMs, String... ids) {
    List<NewTask> tasks = new ArrayList<>();
    for (String id : ids) {
      tasks.add(new NewTask(TestTasks.onceNoop(id), "trace", atMs));
    }
    new TaskStore(runtime.dataSource()).create(tasks, "test", atMs);
  }

  /** A connection whose open transaction ran {@code sql} and holds its locks until closed. */
  private static Connection held(TestRuntime runtime, String sql) throws Exception {
    Connection connection = runtime.dataSource().getConnection();
    connection.setAutoCommit(false);
    try (Statement statement = connection.createStatement()) {
      assertThat(statement.executeUpdate(sql)).as("rows the holder changed: %s", sql).isOne();
    }
    return connection; // the pool rolls the open transaction back when it is closed
  }

  private static HikariDataSource shortLockWait(DatabaseCoordinates db) {
    HikariDataSource shortWait = new HikariDataSource();
    shortWait.setJdbcUrl(db.jdbcUrl());
    shortWait.setUsername(db.user());
    shortWait.setPassword(db.password());
    shortWait.setMaximumPoolSize(2);
    shortWait.setConnectionInitSql("SET SESSION innodb_lock_wait_timeout = " + LOCK_WAIT_S);
    return shortWait;
  }

  private static long count(TestRuntime runtime, String sql) throws Exception {
    try (Connection connection = runtime.dataSource().getConnection();
        Statement statement = connection.createStatement();
        java.sql.ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
