package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.StatusTransitions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Dead letters ({@code ax_dead_letter}): one per DEAD instance, with the task as it was, every
 * attempt and the last stack trace; and the operator's actions on them. A replay moves the instance
 * DEAD → DISPATCHED with a fresh retry budget and marks the letter REPLAYED in one transaction,
 * both conditional, so replaying one letter twice runs it once. Thread-safe.
 */
public final class DeadLetterStore {

  /** A stored dead letter. {@code state} is OPEN, REPLAYED or DISCARDED. */
  public record DeadLetter(
      long id,
      String instanceId,
      String taskId,
      String group,
      String taskSnapshot,
      String attemptsJson,
      String lastError,
      String lastStack,
      String state,
      String stateReason,
      long createdAtMs,
      long updatedAtMs) {}

  /** What {@link #list} returns: any field null means "any". */
  public record Filter(String taskId, String group, Long fromMs, Long toMs, String state) {}

  /** How a replay ended. */
  public enum ReplayResult {
    REPLAYED,
    NOT_FOUND,
    /** Replayed or discarded before: nothing runs again. */
    NOT_OPEN,
    /** The letter is open but its instance is no longer DEAD (changed by hand): nothing runs. */
    INSTANCE_NOT_DEAD
  }

  private static final String COLUMNS =
      "id, instance_id, task_id, task_group, task_snapshot, attempts_json, last_error, last_stack,"
          + " state, state_reason, created_at_ms, updated_at_ms";

  private final DataSource dataSource;

  public DeadLetterStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Stores the letter of a DEAD instance: a new row, or, when the instance's letter was REPLAYED
   * and the instance is DEAD again, that letter reopened with the new content (one letter per
   * instance, and a replay can always be replayed again). An OPEN or DISCARDED letter is left as it
   * is, and so is a REPLAYED one whose instance is not DEAD now (an old event, delivered again).
   *
   * @return whether a letter was stored or reopened now
   */
  public boolean store(DeadLetter letter) {
    return Transactions.inTransaction(
        dataSource,
        "storing the dead letter of " + letter.instanceId(),
        connection -> {
          Long existingId = null;
          String state = null;
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT id, state FROM ax_dead_letter WHERE instance_id = ? FOR UPDATE")) {
            select.setString(1, letter.instanceId());
            try (ResultSet rs = select.executeQuery()) {
              if (rs.next()) {
                existingId = rs.getLong(1);
                state = rs.getString(2);
              }
            }
          }
          if (existingId == null) {
            return insert(connection, letter);
          }
          if (!state.equals("REPLAYED") || !instanceIsDead(connection, letter.instanceId())) {
            return false;
          }
          try (PreparedStatement reopen =
              connection.prepareStatement(
                  "UPDATE ax_dead_letter SET state = 'OPEN', task_snapshot = ?, attempts_json = ?,"
                      + " last_error = ?, last_stack = ?, state_reason = ?, updated_at_ms = ?"
                      + " WHERE id = ? AND state = 'REPLAYED'")) {
            reopen.setString(1, letter.taskSnapshot());
            reopen.setString(2, letter.attemptsJson());
            reopen.setString(3, Sql.truncate(letter.lastError(), 2048));
            reopen.setString(4, letter.lastStack());
            reopen.setString(
                5, Sql.truncate("dead again after a replay: " + letter.stateReason(), 512));
            reopen.setLong(6, letter.createdAtMs());
            reopen.setLong(7, existingId);
            return reopen.executeUpdate() == 1;
          }
        });
  }

  private static boolean insert(Connection connection, DeadLetter letter) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO ax_dead_letter (instance_id, task_id, task_group, task_snapshot,"
                + " attempts_json, last_error, last_stack, state, state_reason,"
                + " created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, 'OPEN', ?, ?, ?)"
                + " ON DUPLICATE KEY UPDATE id = id")) {
      insert.setString(1, letter.instanceId());
      insert.setString(2, letter.taskId());
      insert.setString(3, letter.group());
      insert.setString(4, letter.taskSnapshot());
      insert.setString(5, letter.attemptsJson());
      insert.setString(6, Sql.truncate(letter.lastError(), 2048));
      insert.setString(7, letter.lastStack());
      insert.setString(8, Sql.truncate(letter.stateReason(), 512));
      insert.setLong(9, letter.createdAtMs());
      insert.setLong(10, letter.createdAtMs());
      return insert.executeUpdate() == 1;
    }
  }

  private static boolean instanceIsDead(Connection connection, String instanceId)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement("SELECT status FROM ax_instance WHERE instance_id = ?")) {
      select.setString(1, instanceId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() && InstanceStatus.DEAD.name().equals(rs.getString(1));
      }
    }
  }

  public Optional<DeadLetter> find(long id) {
    return Transactions.read(
        dataSource,
        "reading dead letter " + id,
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT " + COLUMNS + " FROM ax_dead_letter WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet rs = select.executeQuery()) {
              return rs.next() ? Optional.of(toLetter(rs)) : Optional.empty();
            }
          }
        });
  }

  /** Letters matching {@code filter}, newest first, at most {@code limit}. */
  public List<DeadLetter> list(Filter filter, int limit) {
    StringBuilder where = new StringBuilder(" WHERE 1 = 1");
    List<Object> values = new ArrayList<>();
    if (filter.taskId() != null) {
      where.append(" AND task_id = ?");
      values.add(filter.taskId());
    }
    if (filter.group() != null) {
      where.append(" AND task_group = ?");
      values.add(filter.group());
    }
    if (filter.fromMs() != null) {
      where.append(" AND created_at_ms >= ?");
      values.add(filter.fromMs());
    }
    if (filter.toMs() != null) {
      where.append(" AND created_at_ms < ?");
      values.add(filter.toMs());
    }
    if (filter.state() != null) {
      where.append(" AND state = ?");
      values.add(filter.state());
    }
    return Transactions.read(
        dataSource,
        "listing dead letters",
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT "
                      + COLUMNS
                      + " FROM ax_dead_letter"
                      + where
                      + " ORDER BY created_at_ms DESC, id DESC LIMIT ?")) {
            int index = 1;
            for (Object value : values) {
              select.setObject(index++, value);
            }
            select.setInt(index, limit);
            List<DeadLetter> letters = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                letters.add(toLetter(rs));
              }
            }
            return letters;
          }
        });
  }

  /**
   * OPEN → REPLAYED, and its instance DEAD → DISPATCHED with a fresh retry budget (attempts made so
   * far no longer count, nor do its runs taken back so far), audited, in one transaction. The
   * caller then emits the instance on {@code ax.task.due.retry}; if that emit is lost the reaper
   * emits it again.
   */
  public ReplayResult replay(long id, String actor, String reason, long nowMs) {
    StatusTransitions.require(InstanceStatus.DEAD, InstanceStatus.DISPATCHED);
    return Transactions.inTransaction(
        dataSource,
        "replaying dead letter " + id,
        connection -> {
          Optional<DeadLetter> letter = lockLetter(connection, id);
          if (letter.isEmpty()) {
            return ReplayResult.NOT_FOUND;
          }
          if (!letter.get().state().equals("OPEN")) {
            return ReplayResult.NOT_OPEN;
          }
          int moved;
          try (PreparedStatement update =
              connection.prepareStatement(
                  "UPDATE ax_instance SET status = ?, retry_base = attempt, taken_back = 0,"
                      + " owner = NULL,"
                      + " dispatched_at_ms = ?, next_attempt_at_ms = NULL, updated_at_ms = ?,"
                      + " epoch = COALESCE((SELECT l.epoch FROM ax_leader_lease l"
                      + " WHERE l.lease_name = 'ticker'), 0)"
                      + " WHERE instance_id = ? AND status = ?")) {
            update.setString(1, InstanceStatus.DISPATCHED.name());
            update.setLong(2, nowMs);
            update.setLong(3, nowMs);
            update.setString(4, letter.get().instanceId());
            update.setString(5, InstanceStatus.DEAD.name());
            moved = update.executeUpdate();
          }
          if (moved == 0) {
            return ReplayResult.INSTANCE_NOT_DEAD;
          }
          setState(connection, id, "REPLAYED", reason, nowMs);
          int attempt = attemptOf(connection, letter.get().instanceId());
          AuditLog.append(
              connection,
              List.of(
                  new AuditLog.Entry(
                      letter.get().instanceId(),
                      letter.get().taskId(),
                      attempt,
                      InstanceStatus.DEAD,
                      InstanceStatus.DISPATCHED,
                      Sql.truncate("dead letter " + id + " replayed: " + reason, 512))),
              actor,
              nowMs);
          return ReplayResult.REPLAYED;
        });
  }

  /**
   * OPEN → DISCARDED with the operator's reason.
   *
   * @return false when there is no such open letter
   */
  public boolean discard(long id, String reason, long nowMs) {
    return Transactions.inTransaction(
        dataSource,
        "discarding dead letter " + id,
        connection -> setState(connection, id, "DISCARDED", reason, nowMs));
  }

  private static boolean setState(
      Connection connection, long id, String state, String reason, long nowMs) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE ax_dead_letter SET state = ?, state_reason = ?, updated_at_ms = ?"
                + " WHERE id = ? AND state = 'OPEN'")) {
      update.setString(1, state);
      update.setString(2, Sql.truncate(reason, 512));
      update.setLong(3, nowMs);
      update.setLong(4, id);
      return update.executeUpdate() == 1;
    }
  }

  private static Optional<DeadLetter> lockLetter(Connection connection, long id)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT " + COLUMNS + " FROM ax_dead_letter WHERE id = ? FOR UPDATE")) {
      select.setLong(1, id);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(toLetter(rs)) : Optional.empty();
      }
    }
  }

  private static int attemptOf(Connection connection, String instanceId) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement("SELECT attempt FROM ax_instance WHERE instance_id = ?")) {
      select.setString(1, instanceId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? rs.getInt(1) : 0;
      }
    }
  }

  /**
   * DEAD instances that have no dead letter yet (their dead-letter event was lost), oldest first.
   */
  public List<String> deadWithoutLetter(int limit) {
    return Transactions.read(
        dataSource,
        "finding dead instances without a letter",
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT i.instance_id FROM ax_instance i LEFT JOIN ax_dead_letter d"
                      + " ON d.instance_id = i.instance_id"
                      + " WHERE i.status = ? AND (d.id IS NULL"
                      + " OR (d.state = 'REPLAYED' AND d.updated_at_ms < i.updated_at_ms))"
                      + " ORDER BY i.updated_at_ms LIMIT ?")) {
            select.setString(1, InstanceStatus.DEAD.name());
            select.setInt(2, limit);
            List<String> ids = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                ids.add(rs.getString(1));
              }
            }
            return ids;
          }
        });
  }

  private static DeadLetter toLetter(ResultSet rs) throws SQLException {
    return new DeadLetter(
        rs.getLong(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        rs.getString(6),
        rs.getString(7),
        rs.getString(8),
        rs.getString(9),
        rs.getString(10),
        rs.getLong(11),
        rs.getLong(12));
  }
}
