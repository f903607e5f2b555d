package dev.ax.common.store;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.InstanceStatus;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * The per-transition audit log, {@code ax_instance_log}. Writers append inside the transaction of
 * the UPDATE they record; readers see an instance's whole history. Thread-safe (stateless).
 */
public final class AuditLog {

  static final int MAX_REASON_LENGTH = 512;

  /** One transition to record. {@code from} is null for the creation of an instance. */
  public record Entry(
      String instanceId,
      String taskId,
      int attempt,
      InstanceStatus from,
      InstanceStatus to,
      String reason) {

    /** The end of {@code outcome}'s run: RUNNING → its status, for {@code reason}. */
    public static Entry runEnded(Outcome outcome, String reason) {
      return new Entry(
          outcome.instanceId(),
          outcome.taskId(),
          outcome.attempt(),
          InstanceStatus.RUNNING,
          outcome.status(),
          reason);
    }
  }

  /** One recorded transition. */
  public record Transition(
      long id,
      String instanceId,
      int attempt,
      InstanceStatus from,
      InstanceStatus to,
      String actor,
      String reason,
      long atMs) {}

  private static final List<String> COLUMNS =
      List.of(
          "instance_id",
          "task_id",
          "attempt",
          "from_status",
          "to_status",
          "actor",
          "reason",
          "at_ms");

  private final Jdbc jdbc;

  public AuditLog(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /** Appends {@code entries} on the caller's open transaction, reasons cut to 512 characters. */
  public static void append(Connection connection, List<Entry> entries, String actor, long atMs)
      throws SQLException {
    Sql.insertRows(
        connection,
        "ax_instance_log",
        COLUMNS,
        entries,
        entry ->
            new Object[] {
              entry.instanceId(),
              entry.taskId(),
              entry.attempt(),
              entry.from() == null ? null : entry.from().name(),
              entry.to().name(),
              actor,
              Sql.truncate(entry.reason(), MAX_REASON_LENGTH),
              atMs
            });
  }

  /** Every transition of one instance, oldest first. */
  public List<Transition> history(String instanceId) {
    return jdbc.query(
        "reading the history of " + instanceId,
        "SELECT id, instance_id, attempt, from_status, to_status, actor, reason, at_ms"
            + " FROM ax_instance_log WHERE instance_id = ? ORDER BY id",
        values(instanceId),
        AuditLog::toTransition);
  }

  private static Transition toTransition(ResultSet rs) throws SQLException {
    String from = rs.getString("from_status");
    return new Transition(
        rs.getLong("id"),
        rs.getString("instance_id"),
        rs.getInt("attempt"),
        from == null ? null : InstanceStatus.valueOf(from),
        InstanceStatus.valueOf(rs.getString("to_status")),
        rs.getString("actor"),
        rs.getString("reason"),
        rs.getLong("at_ms"));
  }
}
