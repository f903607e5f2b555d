package dev.ax.common.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Fills a test's own database with a history for {@link QueryPlans}: {@value #TASKS} tasks of every
 * trigger type and state, and {@value #INSTANCES_PER_TASK} instances each, most of them finished
 * long ago (as months of history would be) and some in every live status, with an audit row each
 * and a dead letter per DEAD instance; then {@code ANALYZE TABLE}, so the optimizer plans with the
 * real sizes. Multi-row inserts: a second or two.
 *
 * <p>The instances of task {@code t00042} are {@code t00042@<due>}; every tenth task is a
 * one-shot's. Times are around {@link #NOW_MS}: finished rows before it, SCHEDULED ones after.
 *
 * <p>Stateless; {@link #seed} is not to be run twice on one database.
 */
public final class SeededHistory {

  public static final int TASKS = 3_000;
  public static final int INSTANCES_PER_TASK = 8;
  public static final long NOW_MS = 1_800_000_000_000L;

  private static final String[] TYPES = {"ONCE", "CRON", "FIXED_RATE", "FIXED_DELAY"};
  private static final int ROWS_PER_INSERT = 1_000;

  private SeededHistory() {}

  /** The id of the n-th seeded task. */
  public static String taskId(int n) {
    return String.format(Locale.ROOT, "t%05d", n);
  }

  public static void seed(DataSource dataSource) throws SQLException {
    List<String> tasks = new ArrayList<>();
    List<String> instances = new ArrayList<>();
    List<String> audit = new ArrayList<>();
    List<String> letters = new ArrayList<>();
    for (int n = 0; n < TASKS; n++) {
      String taskId = taskId(n);
      String type = TYPES[n % TYPES.length];
      String state = n % 50 == 7 ? "DELETED" : n % 50 == 9 ? "PAUSED" : "ACTIVE";
      tasks.add(
          String.format(
              Locale.ROOT,
              "('%s', 1, 'g%d', '%s', '%s', '{}', 'trace', %d, %d, '%s|%d')",
              taskId,
              n % 10,
              type,
              state,
              NOW_MS - 90L * 86_400_000,
              NOW_MS - (n % 100) * 86_400_000L,
              type,
              n % 40));
      for (int k = 0; k < INSTANCES_PER_TASK; k++) {
        int i = n * INSTANCES_PER_TASK + k;
        String status = k == INSTANCES_PER_TASK - 1 ? liveStatusOf(n) : finishedStatusOf(i);
        boolean live = k == INSTANCES_PER_TASK - 1; // each task's newest, in a live status
        long dueAtMs = live ? NOW_MS + (i % 3_600) * 1_000L : NOW_MS - (i + 1) * 300_000L;
        String instanceId = taskId + "@" + dueAtMs;
        instances.add(
            String.format(
                Locale.ROOT,
                "('%s', '%s', 1, '%s', %d, %d, 'trace', %s, %s, %s, %d, %d)",
                instanceId,
                taskId,
                status,
                status.equals("RETRYING") ? 2 : 1,
                dueAtMs,
                status.equals("RUNNING") ? "'node-1'" : "NULL",
                status.equals("RUNNING") ? Long.toString(NOW_MS + i % 100 - 50) : "NULL",
                status.equals("RETRYING") ? Long.toString(NOW_MS + i % 600 * 1_000L) : "NULL",
                dueAtMs,
                dueAtMs + 1_000));
        audit.add(
            String.format(
                Locale.ROOT,
                "('%s', '%s', 1, 'DISPATCHED', '%s', 'seed', %d)",
                instanceId,
                taskId,
                status,
                dueAtMs + 1_000));
        if (status.equals("DEAD")) {
          letters.add(
              String.format(
                  Locale.ROOT,
                  "('%s', '%s', 'g%d', '{}', '[]', '%s', %d, %d)",
                  instanceId,
                  taskId,
                  n % 10,
                  i % 2 == 0 ? "OPEN" : "DISCARDED",
                  dueAtMs,
                  dueAtMs));
        }
      }
    }
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      insert(
          statement,
          "INSERT INTO ax_task (task_id, version, task_group, trigger_type, state, spec_json,"
              + " trace_id, created_at_ms, updated_at_ms, trigger_group) VALUES ",
          tasks);
      insert(
          statement,
          "INSERT INTO ax_instance (instance_id, task_id, task_version, status, attempt,"
              + " due_at_ms, trace_id, owner, lease_until_ms, next_attempt_at_ms, created_at_ms,"
              + " updated_at_ms) VALUES ",
          instances);
      insert(
          statement,
          "INSERT INTO ax_instance_log (instance_id, task_id, attempt, from_status, to_status,"
              + " actor, at_ms) VALUES ",
          audit);
      insert(
          statement,
          "INSERT INTO ax_dead_letter (instance_id, task_id, task_group, task_snapshot,"
              + " attempts_json, state, created_at_ms, updated_at_ms) VALUES ",
          letters);
      statement.execute(
          "ANALYZE TABLE ax_task, ax_instance, ax_instance_log, ax_dead_letter, ax_outbox");
    }
  }

  /** Most rows finished: the shares a long-running system has. */
  private static String finishedStatusOf(int i) {
    return switch (i % 40) {
      case 0 -> "CANCELLED";
      case 1 -> "SKIPPED";
      case 2 -> "DEAD";
      default -> "SUCCESS";
    };
  }

  /** Each task's newest instance: mostly SCHEDULED, some in every other live status. */
  private static String liveStatusOf(int n) {
    return switch (n % 20) {
      case 0 -> "DISPATCHED";
      case 1 -> "RUNNING";
      case 2, 3 -> "RETRYING";
      case 4 -> "PAUSED";
      default -> "SCHEDULED";
    };
  }

  private static void insert(Statement statement, String head, List<String> rows)
      throws SQLException {
    for (int from = 0; from < rows.size(); from += ROWS_PER_INSERT) {
      List<String> chunk = rows.subList(from, Math.min(rows.size(), from + ROWS_PER_INSERT));
      statement.executeUpdate(head + String.join(", ", chunk));
    }
  }
}
