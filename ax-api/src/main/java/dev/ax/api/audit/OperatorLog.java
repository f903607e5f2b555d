package dev.ax.api.audit;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.store.Jdbc;
import dev.ax.common.store.Sql;
import java.util.List;
import javax.sql.DataSource;

/**
 * The operators' table, {@code ax_operator_log}: one row per operator action that changes state,
 * written when the CLI or the API acts, read by {@code ax audit}. Thread-safe (stateless over a
 * pool).
 */
public final class OperatorLog {

  /** One recorded action. */
  public record Entry(
      long id, String actor, String action, String target, String reason, long atMs) {}

  private final Jdbc jdbc;

  public OperatorLog(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /** Records that {@code actor} did {@code action} on {@code target}, for {@code reason}. */
  public void record(String actor, String action, String target, String reason, long atMs) {
    jdbc.inTransaction(
        "recording " + action + " by " + actor,
        tx ->
            tx.update(
                "INSERT INTO ax_operator_log (actor, action, target, reason, at_ms)"
                    + " VALUES (?, ?, ?, ?, ?)",
                values(
                    Sql.truncate(actor, 128),
                    action,
                    Sql.truncate(target, 255),
                    reason == null ? null : Sql.truncate(reason, 512),
                    atMs)));
  }

  /** The newest {@code limit} entries, newest first, of {@code actor} only when not null. */
  public List<Entry> newest(String actor, int limit) {
    return jdbc.query(
        "reading the operator log",
        "SELECT id, actor, action, target, reason, at_ms FROM ax_operator_log"
            + (actor == null ? "" : " WHERE actor = ?")
            + " ORDER BY id DESC LIMIT ?",
        actor == null ? values(limit) : values(actor, limit),
        rs ->
            new Entry(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getLong(6)));
  }
}
