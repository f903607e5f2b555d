package dev.ax.ticker.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The overdue gauge's read of terminal tasks costs the same however many one-shot tasks past the
 * cutoff still wait for their instance to go: behind a backlog, that is every such task, and an
 * unbounded walk of them took seconds per read on retention's own thread (the 1-hour soak at
 * 2,000/s stalled on it). Counted as the rows the server's handlers read for the statement.
 */
@ExtendWith(AxInfraExtension.class)
class RetentionOverdueIT {

  private static final int HELD = 6 * RetentionSql.OLDEST_TASK_PROBE;

  @Test
  void theTaskReadIsBoundedByItsProbeNotByTheBacklog(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      long nowMs = runtime.clock().millis();
      long cutoffMs = nowMs - Duration.ofHours(1).toMillis();
      long oldMs = nowMs - Duration.ofHours(2).toMillis();
      List<String> tasks = new ArrayList<>();
      List<String> instances = new ArrayList<>();
      for (int i = 0; i < HELD; i++) {
        // ENDED long ago, its instance still there: not deletable until the instance goes.
        tasks.add(task("held-" + i, oldMs + i));
        instances.add(
            String.format(
                Locale.ROOT,
                "('held-%d@1', 'held-%d', 1, 'SUCCESS', 1, %d, 't', NULL, NULL, NULL, %d, %d)",
                i,
                i,
                oldMs,
                oldMs,
                nowMs));
      }
      tasks.add(task("free", oldMs + HELD)); // deletable, behind every held one
      RawSql.execute(
          runtime.dataSource(),
          "INSERT INTO ax_task (task_id, version, task_group, trigger_type, state, spec_json,"
              + " trace_id, created_at_ms, updated_at_ms, trigger_group) VALUES "
              + String.join(",", tasks));
      RawSql.execute(
          runtime.dataSource(),
          "INSERT INTO ax_instance (instance_id, task_id, task_version, status, attempt,"
              + " due_at_ms, trace_id, owner, lease_until_ms, next_attempt_at_ms, created_at_ms,"
              + " updated_at_ms) VALUES "
              + String.join(",", instances));
      RawSql.execute(runtime.dataSource(), "ANALYZE TABLE ax_task, ax_instance");

      try (Connection connection = runtime.dataSource().getConnection()) {
        long before = handlerReads(connection);
        Optional<Long> oldest = oldestEndedTask(connection, cutoffMs);
        long reads = handlerReads(connection) - before;

        assertThat(reads)
            .as("rows read past %d held tasks (probe %d)", HELD, RetentionSql.OLDEST_TASK_PROBE)
            .isLessThan(4L * RetentionSql.OLDEST_TASK_PROBE);
        assertThat(oldest).as("no deletable task among the probe: none reported").isEmpty();

        RawSql.execute(runtime.dataSource(), "DELETE FROM ax_instance WHERE task_id LIKE 'held-%'");
        assertThat(oldestEndedTask(connection, cutoffMs))
            .as("once the instances went, the oldest held task is the oldest deletable")
            .contains(oldMs);
      }
    }
  }

  private static String task(String taskId, long updatedAtMs) {
    return String.format(
        Locale.ROOT,
        "('%s', 1, 'g', 'ONCE', 'ENDED', '{}', 't', %d, %d, 'ONCE|0')",
        taskId,
        updatedAtMs,
        updatedAtMs);
  }

  private static Optional<Long> oldestEndedTask(Connection connection, long cutoffMs)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(RetentionSql.OLDEST_TASK_SQL)) {
      select.setString(1, "ENDED");
      select.setLong(2, cutoffMs);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
      }
    }
  }

  /** Rows this session's handlers have read so far (index and table reads of every kind). */
  private static long handlerReads(Connection connection) throws SQLException {
    long reads = 0;
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SHOW SESSION STATUS LIKE 'Handler_read%'")) {
      while (rs.next()) {
        reads += rs.getLong(2);
      }
    }
    return reads;
  }
}
