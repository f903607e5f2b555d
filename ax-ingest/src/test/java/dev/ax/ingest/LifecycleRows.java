package dev.ax.ingest;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * The rows the lifecycle store ITs start from and check, in plain SQL: tasks are created through
 * the task store, their states and their instances' statuses set and read with statements of the
 * test's own, so that the tests depend on the stores' public methods and the schema only, not on
 * how a store names its states in code.
 *
 * <p>Not thread-safe: one per test class, used from the test thread.
 */
final class LifecycleRows {

  private final DataSource dataSource;

  LifecycleRows(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Creates the task ACTIVE, with its first slot instance SCHEDULED at {@code firstDueMs}. */
  String create(TaskSpec spec, long firstDueMs, long nowMs) {
    new TaskStore(dataSource)
        .create(List.of(new NewTask(spec, "trace-" + spec.taskId(), firstDueMs)), "test", nowMs);
    return InstanceIds.of(spec.taskId(), firstDueMs);
  }

  /** Adds an instance of the task (version 1) in {@code status}, after {@code attempt} attempts. */
  void addInstance(String instanceId, String taskId, long dueAtMs, String status, int attempt) {
    new InstanceStore(dataSource)
        .create(
            List.of(
                new NewInstance(
                    instanceId, taskId, 1, dueAtMs, "trace", "test", null, oneShot(taskId))),
            "test",
            dueAtMs);
    setStatus(instanceId, status, attempt);
  }

  void setStatus(String instanceId, String status, int attempt) {
    execute(
        "UPDATE ax_instance SET status = ?, attempt = ?,"
            + " owner = CASE WHEN ? IN ('DISPATCHED', 'RUNNING') THEN 'n1' ELSE NULL END"
            + " WHERE instance_id = ?",
        status,
        attempt,
        status,
        instanceId);
  }

  void setTaskState(String taskId, String state) {
    execute("UPDATE ax_task SET state = ? WHERE task_id = ?", state, taskId);
  }

  /** Whether the task's trigger is ONCE, as an instance of it records. */
  boolean oneShot(String taskId) {
    return "ONCE".equals(one("SELECT trigger_type FROM ax_task WHERE task_id = ?", taskId));
  }

  String taskState(String taskId) {
    return one("SELECT state FROM ax_task WHERE task_id = ?", taskId);
  }

  int taskVersion(String taskId) {
    return Integer.parseInt(one("SELECT version FROM ax_task WHERE task_id = ?", taskId));
  }

  /** The task's instances, instance id to status. */
  Map<String, String> statuses(String taskId) {
    Map<String, String> byId = new TreeMap<>();
    for (List<String> row :
        rows("SELECT instance_id, status FROM ax_instance WHERE task_id = ?", taskId)) {
      byId.put(row.get(0), row.get(1));
    }
    return byId;
  }

  /** The task's instances, instance id to the spec version they run. */
  Map<String, Integer> versions(String taskId) {
    Map<String, Integer> byId = new TreeMap<>();
    for (List<String> row :
        rows("SELECT instance_id, task_version FROM ax_instance WHERE task_id = ?", taskId)) {
      byId.put(row.get(0), Integer.parseInt(row.get(1)));
    }
    return byId;
  }

  /** The audit rows of the instance's moves (its creation left out): "FROM>TO: reason". */
  List<String> moves(String instanceId) {
    return rows(
            "SELECT from_status, to_status, reason FROM ax_instance_log WHERE instance_id = ?"
                + " AND from_status IS NOT NULL ORDER BY id",
            instanceId)
        .stream()
        .map(row -> row.get(0) + ">" + row.get(1) + ": " + row.get(2))
        .toList();
  }

  /** The command types recorded for the task under {@code commandId} in {@code ax_task_command}. */
  List<String> recorded(String taskId, String commandId) {
    return rows(
            "SELECT command_type FROM ax_task_command WHERE task_id = ? AND command_id = ?",
            taskId,
            commandId)
        .stream()
        .map(row -> row.get(0))
        .toList();
  }

  /** The first column of the first row, or null when there is none. */
  String one(String sql, Object... args) {
    List<List<String>> rows = rows(sql, args);
    return rows.isEmpty() ? null : rows.get(0).get(0);
  }

  List<List<String>> rows(String sql, Object... args) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = bind(connection, sql, args);
        ResultSet rs = statement.executeQuery()) {
      List<List<String>> rows = new ArrayList<>();
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          row.add(rs.getString(i));
        }
        rows.add(row);
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  void execute(String sql, Object... args) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = bind(connection, sql, args)) {
      statement.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static PreparedStatement bind(Connection connection, String sql, Object... args)
      throws SQLException {
    PreparedStatement statement = connection.prepareStatement(sql);
    for (int i = 0; i < args.length; i++) {
      statement.setObject(i + 1, args[i]);
    }
    return statement;
  }
}
