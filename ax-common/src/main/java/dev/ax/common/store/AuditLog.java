package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The per-transition audit log, {@code ax_instance_log}. Writers append inside the transaction of
 * the UPDATE they record; readers see an instance's whole history. Thread-safe (stateless).
 */
public final class AuditLog {

  static final int MAX_REASON_LENGTH = 512;

  /** One transition to record. {@code from} is null for the creation of an instance. */
  record Entry(
      String instanceId,
      String taskId,
      int attempt,
      InstanceStatus from,
      InstanceStatus to,
      String reason) {}

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

  private static final String INSERT =
      "INSERT INTO ax_instance_log (instance_id, task_id, attempt, from_status, to_status, actor,"
          + " reason, at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

  private final DataSource dataSource;

  public AuditLog(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  static void append(Connection connection, List<Entry> entries, String actor, long atMs)
      throws SQLException {
    if (entries.isEmpty()) {
      return;
    }
    try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
      for (Entry entry : entries) {
        insert.setString(1, entry.instanceId());
        insert.setString(2, entry.taskId());
        insert.setInt(3, entry.attempt());
        insert.setString(4, entry.from() == null ? null : entry.from().name());
        insert.setString(5, entry.to().name());
        insert.setString(6, actor);
        insert.setString(7, Sql.truncate(entry.reason(), MAX_REASON_LENGTH));
        insert.setLong(8, atMs);
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  /** Every transition of one instance, oldest first. */
  public List<Transition> history(String instanceId) {
    return Transactions.read(
        dataSource,
        "reading the history of " + instanceId,
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT id, instance_id, attempt, from_status, to_status, actor, reason, at_ms"
                      + " FROM ax_instance_log WHERE instance_id = ? ORDER BY id")) {
            select.setString(1, instanceId);
            List<Transition> transitions = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                String from = rs.getString("from_status");
                transitions.add(
                    new Transition(
                        rs.getLong("id"),
                        rs.getString("instance_id"),
                        rs.getInt("attempt"),
                        from == null ? null : InstanceStatus.valueOf(from),
                        InstanceStatus.valueOf(rs.getString("to_status")),
                        rs.getString("actor"),
                        rs.getString("reason"),
                        rs.getLong("at_ms")));
              }
            }
            return transitions;
          }
        });
  }
}
