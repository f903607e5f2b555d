package dev.ax.common.store;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Tasks in {@code ax_task}. Creating a task writes the task, its first instance and the instance's
 * first audit row in one transaction. Thread-safe (stateless over a pool).
 */
public final class TaskStore {

  private static final String INSERT_TASK =
      "INSERT INTO ax_task (task_id, version, task_group, trigger_type, state, spec_json, trace_id,"
          + " created_at_ms, updated_at_ms) VALUES (?, 1, ?, ?, 'ACTIVE', ?, ?, ?, ?)"
          + " ON DUPLICATE KEY UPDATE task_id = task_id";
  private static final String INSERT_INSTANCE =
      "INSERT INTO ax_instance (instance_id, task_id, task_version, status, attempt, due_at_ms,"
          + " trace_id, created_at_ms, updated_at_ms) VALUES (?, ?, 1, ?, 0, ?, ?, ?, ?)"
          + " ON DUPLICATE KEY UPDATE instance_id = instance_id";
  private static final String SELECT_TASK =
      "SELECT task_id, version, state, spec_json, trace_id FROM ax_task WHERE task_id IN ";

  private final DataSource dataSource;

  public TaskStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Stores each task that does not exist yet, with its first instance SCHEDULED, in one transaction
   * for the whole list.
   *
   * @return one outcome per task, in order, and the keys of the instances created
   */
  public CreateResult create(List<NewTask> tasks, String actor, long nowMs) {
    if (tasks.isEmpty()) {
      return new CreateResult(List.of(), Map.of());
    }
    return Transactions.inTransaction(
        dataSource,
        "creating " + tasks.size() + " task(s)",
        connection -> {
          int[] taskCounts;
          try (PreparedStatement insert = connection.prepareStatement(INSERT_TASK)) {
            for (NewTask task : tasks) {
              insert.setString(1, task.spec().taskId());
              insert.setString(2, task.spec().group());
              insert.setString(3, task.spec().trigger().type().name());
              insert.setString(4, AxJson.writeString(TaskSpecJson.write(task.spec())));
              insert.setString(5, task.traceId());
              insert.setLong(6, nowMs);
              insert.setLong(7, nowMs);
              insert.addBatch();
            }
            taskCounts = insert.executeBatch();
          }
          List<CreateOutcome> outcomes = new ArrayList<>(tasks.size());
          List<NewTask> created = new ArrayList<>();
          for (int i = 0; i < tasks.size(); i++) {
            boolean inserted = taskCounts[i] == 1;
            outcomes.add(inserted ? CreateOutcome.CREATED : CreateOutcome.DUPLICATE);
            if (inserted) {
              created.add(tasks.get(i));
            }
          }
          return new CreateResult(
              outcomes, insertFirstInstances(connection, created, actor, nowMs));
        });
  }

  private static Map<String, Long> insertFirstInstances(
      Connection connection, List<NewTask> created, String actor, long nowMs) throws SQLException {
    if (created.isEmpty()) {
      return Map.of();
    }
    List<AuditLog.Entry> audit = new ArrayList<>(created.size());
    try (PreparedStatement insert = connection.prepareStatement(INSERT_INSTANCE)) {
      for (NewTask task : created) {
        String taskId = task.spec().taskId();
        String instanceId = InstanceIds.of(taskId, task.firstDueAtMs());
        insert.setString(1, instanceId);
        insert.setString(2, taskId);
        insert.setString(3, InstanceStatus.SCHEDULED.name());
        insert.setLong(4, task.firstDueAtMs());
        insert.setString(5, task.traceId());
        insert.setLong(6, nowMs);
        insert.setLong(7, nowMs);
        insert.addBatch();
        audit.add(
            new AuditLog.Entry(instanceId, taskId, 0, null, InstanceStatus.SCHEDULED, "created"));
      }
      insert.executeBatch();
    }
    AuditLog.append(connection, audit, actor, nowMs);
    Map<String, Long> seqs = new HashMap<>();
    List<String> ids = audit.stream().map(AuditLog.Entry::instanceId).toList();
    for (List<String> chunk : Sql.chunks(ids)) {
      try (PreparedStatement select =
          connection.prepareStatement(
              "SELECT instance_id, seq FROM ax_instance WHERE instance_id IN ("
                  + Sql.placeholders(chunk.size())
                  + ")")) {
        Sql.bindAll(select, 1, chunk);
        try (ResultSet rs = select.executeQuery()) {
          while (rs.next()) {
            seqs.put(rs.getString(1), rs.getLong(2));
          }
        }
      }
    }
    return seqs;
  }

  public Optional<StoredTask> find(String taskId) {
    return Optional.ofNullable(findAll(List.of(taskId)).get(taskId));
  }

  /** The stored tasks among {@code taskIds}, by id; missing ids are absent from the map. */
  public Map<String, StoredTask> findAll(Collection<String> taskIds) {
    Map<String, StoredTask> found = new HashMap<>();
    if (taskIds.isEmpty()) {
      return found;
    }
    return Transactions.read(
        dataSource,
        "reading " + taskIds.size() + " task(s)",
        connection -> {
          for (List<String> chunk : Sql.chunks(taskIds)) {
            String sql = SELECT_TASK + "(" + Sql.placeholders(chunk.size()) + ")";
            try (PreparedStatement select = connection.prepareStatement(sql)) {
              Sql.bindAll(select, 1, chunk);
              try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                  String taskId = rs.getString("task_id");
                  found.put(
                      taskId,
                      new StoredTask(
                          TaskSpecJson.readStored(taskId, rs.getString("spec_json")),
                          rs.getInt("version"),
                          rs.getString("state"),
                          rs.getString("trace_id")));
                }
              }
            }
          }
          return found;
        });
  }
}
