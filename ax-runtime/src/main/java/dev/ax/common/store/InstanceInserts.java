package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Creates SCHEDULED instances inside the caller's transaction, idempotently: an instance id that
 * exists already is left as it is and gets no audit row.
 */
final class InstanceInserts {

  private static final List<String> COLUMNS =
      List.of(
          "instance_id",
          "task_id",
          "task_version",
          "status",
          "attempt",
          "due_at_ms",
          "trace_id",
          "created_at_ms",
          "updated_at_ms",
          "flow_run_id",
          "one_shot");

  private InstanceInserts() {}

  /**
   * @return the numeric key of each instance this call created, by instance id
   */
  static Map<String, Long> insert(
      Connection connection, List<NewInstance> instances, String actor, long nowMs)
      throws SQLException {
    return insert(connection, instances, actor, nowMs, true);
  }

  /**
   * @param mayExist false when the caller knows none of the ids can exist (first instances of tasks
   *     created in this transaction): skips the existence check
   */
  static Map<String, Long> insert(
      Connection connection,
      List<NewInstance> instances,
      String actor,
      long nowMs,
      boolean mayExist)
      throws SQLException {
    if (instances.isEmpty()) {
      return Map.of();
    }
    Set<String> existing = mayExist ? existingIds(connection, instances) : Set.of();
    List<NewInstance> fresh = new ArrayList<>();
    Set<String> seen = new HashSet<>(existing);
    for (NewInstance instance : instances) {
      if (seen.add(instance.instanceId())) {
        fresh.add(instance);
      }
    }
    List<Object[]> rows = new ArrayList<>(fresh.size());
    List<AuditLog.Entry> audit = new ArrayList<>(fresh.size());
    for (NewInstance instance : fresh) {
      rows.add(
          new Object[] {
            instance.instanceId(),
            instance.taskId(),
            instance.taskVersion(),
            InstanceStatus.SCHEDULED.name(),
            0,
            instance.dueAtMs(),
            instance.traceId(),
            nowMs,
            nowMs,
            instance.flowRunId(),
            instance.oneShot() ? 1 : 0
          });
      audit.add(
          new AuditLog.Entry(
              instance.instanceId(),
              instance.taskId(),
              0,
              null,
              InstanceStatus.SCHEDULED,
              instance.reason()));
    }
    // A concurrent writer inserting the same id makes this fail with a duplicate key: the
    // transaction rolls back and the caller's retry finds the row existing.
    Sql.insertRows(connection, "ax_instance", COLUMNS, rows);
    AuditLog.append(connection, audit, actor, nowMs);
    Map<String, Long> seqs = new HashMap<>();
    new JdbcTransaction(connection)
        .queryIn(
            fresh.stream().map(NewInstance::instanceId).toList(),
            in -> "SELECT instance_id, seq FROM ax_instance WHERE instance_id IN (" + in + ")",
            List.of(),
            rs -> Map.entry(rs.getString(1), rs.getLong(2)))
        .forEach(row -> seqs.put(row.getKey(), row.getValue()));
    return seqs;
  }

  private static Set<String> existingIds(Connection connection, List<NewInstance> instances)
      throws SQLException {
    return Sql.existing(
        connection,
        "ax_instance",
        "instance_id",
        instances.stream().map(NewInstance::instanceId).toList());
  }
}
