package dev.ax.common.store;

import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.RUNNING;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.StatusTransitions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Instances in {@code ax_instance}. Every status change is one conditional UPDATE ({@code WHERE
 * status = ?}, mirroring {@link StatusTransitions}) plus its audit rows, in one transaction. A row
 * that did not match is a lost race, reported by leaving it out of the result, never thrown.
 *
 * <p>Batch moves (the ticker's dispatch, the dispatcher's claim) are one UPDATE over an IN list
 * that stamps a fresh {@code batch_token}; the rows carrying that token afterwards are exactly the
 * rows this caller won.
 *
 * <p>Thread-safe (stateless over a pool).
 */
public final class InstanceStore {

  private static final String COLUMNS =
      "instance_id, task_id, status, attempt, due_at_ms, owner, claimed_at_ms, finished_at_ms,"
          + " last_error, trace_id";

  private final DataSource dataSource;

  public InstanceStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** SCHEDULED instances due before {@code untilMs}, oldest first, at most {@code limit}. */
  public List<DueInstance> findScheduledDueBefore(long untilMs, int limit) {
    return Transactions.read(
        dataSource,
        "loading due instances",
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT instance_id, task_id, due_at_ms, trace_id FROM ax_instance"
                      + " WHERE status = ? AND due_at_ms < ? ORDER BY due_at_ms LIMIT ?")) {
            select.setString(1, SCHEDULED.name());
            select.setLong(2, untilMs);
            select.setInt(3, limit);
            List<DueInstance> due = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                due.add(
                    new DueInstance(
                        rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4)));
              }
            }
            return due;
          }
        });
  }

  /**
   * SCHEDULED → DISPATCHED for the given instances.
   *
   * @return the instances this call moved (others were not SCHEDULED any more)
   */
  public List<DueInstance> markDispatched(
      Collection<String> instanceIds, String actor, long epoch, long nowMs) {
    StatusTransitions.require(SCHEDULED, DISPATCHED);
    if (instanceIds.isEmpty()) {
      return List.of();
    }
    return Transactions.inTransaction(
        dataSource,
        "dispatching " + instanceIds.size() + " instance(s)",
        connection -> {
          List<DueInstance> won = new ArrayList<>(instanceIds.size());
          for (List<String> chunk : Sql.chunks(instanceIds)) {
            String token = UUID.randomUUID().toString();
            String in = "(" + Sql.placeholders(chunk.size()) + ")";
            int updated;
            try (PreparedStatement update =
                connection.prepareStatement(
                    "UPDATE ax_instance SET status = ?, epoch = ?, dispatched_at_ms = ?,"
                        + " batch_token = ?, updated_at_ms = ? WHERE instance_id IN "
                        + in
                        + " AND status = ?")) {
              update.setString(1, DISPATCHED.name());
              update.setLong(2, epoch);
              update.setLong(3, nowMs);
              update.setString(4, token);
              update.setLong(5, nowMs);
              int next = Sql.bindAll(update, 6, chunk);
              update.setString(next, SCHEDULED.name());
              updated = update.executeUpdate();
            }
            if (updated == 0) {
              continue;
            }
            auditBatch(connection, chunk, token, SCHEDULED, DISPATCHED, actor, "due", nowMs);
            try (PreparedStatement select =
                connection.prepareStatement(
                    "SELECT instance_id, task_id, due_at_ms, trace_id FROM ax_instance"
                        + " WHERE instance_id IN "
                        + in
                        + " AND batch_token = ?")) {
              int next = Sql.bindAll(select, 1, chunk);
              select.setString(next, token);
              try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                  won.add(
                      new DueInstance(
                          rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4)));
                }
              }
            }
            checkCount(updated, countOf(won, chunk), "dispatch");
          }
          return won;
        });
  }

  /**
   * DISPATCHED → RUNNING for the given instances, owned by {@code owner} until {@code
   * leaseUntilMs}, with the attempt number incremented.
   *
   * @return the instances this dispatcher won; the rest belong to someone else or are not due
   */
  public List<ClaimedInstance> claim(
      Collection<String> instanceIds, String owner, long leaseUntilMs, long nowMs) {
    StatusTransitions.require(DISPATCHED, RUNNING);
    if (instanceIds.isEmpty()) {
      return List.of();
    }
    return Transactions.inTransaction(
        dataSource,
        "claiming " + instanceIds.size() + " instance(s)",
        connection -> {
          List<ClaimedInstance> won = new ArrayList<>(instanceIds.size());
          for (List<String> chunk : Sql.chunks(instanceIds)) {
            String token = UUID.randomUUID().toString();
            String in = "(" + Sql.placeholders(chunk.size()) + ")";
            int updated;
            try (PreparedStatement update =
                connection.prepareStatement(
                    "UPDATE ax_instance SET status = ?, attempt = attempt + 1, owner = ?,"
                        + " lease_until_ms = ?, claimed_at_ms = ?, batch_token = ?,"
                        + " updated_at_ms = ? WHERE instance_id IN "
                        + in
                        + " AND status = ?")) {
              update.setString(1, RUNNING.name());
              update.setString(2, owner);
              update.setLong(3, leaseUntilMs);
              update.setLong(4, nowMs);
              update.setString(5, token);
              update.setLong(6, nowMs);
              int next = Sql.bindAll(update, 7, chunk);
              update.setString(next, DISPATCHED.name());
              updated = update.executeUpdate();
            }
            if (updated == 0) {
              continue;
            }
            auditBatch(connection, chunk, token, DISPATCHED, RUNNING, owner, "claimed", nowMs);
            try (PreparedStatement select =
                connection.prepareStatement(
                    "SELECT instance_id, task_id, task_version, attempt, due_at_ms, trace_id"
                        + " FROM ax_instance WHERE instance_id IN "
                        + in
                        + " AND batch_token = ?")) {
              int next = Sql.bindAll(select, 1, chunk);
              select.setString(next, token);
              int before = won.size();
              try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                  won.add(
                      new ClaimedInstance(
                          rs.getString(1),
                          rs.getString(2),
                          rs.getInt(3),
                          rs.getInt(4),
                          rs.getLong(5),
                          nowMs,
                          rs.getString(6)));
                }
              }
              checkCount(updated, won.size() - before, "claim");
            }
          }
          return won;
        });
  }

  /**
   * RUNNING → SUCCESS / FAILED / TIMEOUT, each only if this owner still holds that attempt.
   *
   * @return for each outcome, in order, whether it was recorded (false: the run was taken back)
   */
  public List<Boolean> recordOutcomes(List<Outcome> outcomes, String owner, long nowMs) {
    if (outcomes.isEmpty()) {
      return List.of();
    }
    for (Outcome outcome : outcomes) {
      StatusTransitions.require(RUNNING, outcome.status());
    }
    return Transactions.inTransaction(
        dataSource,
        "recording " + outcomes.size() + " outcome(s)",
        connection -> {
          int[] counts;
          try (PreparedStatement update =
              connection.prepareStatement(
                  "UPDATE ax_instance SET status = ?, finished_at_ms = ?, last_error = ?,"
                      + " lease_until_ms = NULL, updated_at_ms = ?"
                      + " WHERE instance_id = ? AND status = ? AND owner = ? AND attempt = ?")) {
            for (Outcome outcome : outcomes) {
              update.setString(1, outcome.status().name());
              update.setLong(2, outcome.finishedAtMs());
              update.setString(3, Sql.truncate(outcome.error(), 2048));
              update.setLong(4, nowMs);
              update.setString(5, outcome.instanceId());
              update.setString(6, RUNNING.name());
              update.setString(7, owner);
              update.setInt(8, outcome.attempt());
              update.addBatch();
            }
            counts = update.executeBatch();
          }
          List<Boolean> recorded = new ArrayList<>(outcomes.size());
          List<AuditLog.Entry> audit = new ArrayList<>();
          for (int i = 0; i < outcomes.size(); i++) {
            if (counts[i] > 1) {
              throw new IllegalStateException(
                  "outcome of " + outcomes.get(i).instanceId() + " updated " + counts[i] + " rows");
            }
            boolean won = counts[i] == 1;
            recorded.add(won);
            if (won) {
              Outcome outcome = outcomes.get(i);
              audit.add(
                  new AuditLog.Entry(
                      outcome.instanceId(),
                      outcome.taskId(),
                      outcome.attempt(),
                      RUNNING,
                      outcome.status(),
                      outcome.error() == null ? "completed" : outcome.error()));
            }
          }
          AuditLog.append(connection, audit, owner, nowMs);
          return recorded;
        });
  }

  public Optional<InstanceRow> find(String instanceId) {
    return Transactions.read(
        dataSource,
        "reading instance " + instanceId,
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT " + COLUMNS + " FROM ax_instance WHERE instance_id = ?")) {
            select.setString(1, instanceId);
            try (ResultSet rs = select.executeQuery()) {
              return rs.next() ? Optional.of(toRow(rs)) : Optional.empty();
            }
          }
        });
  }

  /** Every instance of one task, oldest due first. */
  public List<InstanceRow> findByTask(String taskId) {
    return Transactions.read(
        dataSource,
        "reading instances of " + taskId,
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT " + COLUMNS + " FROM ax_instance WHERE task_id = ? ORDER BY due_at_ms")) {
            select.setString(1, taskId);
            List<InstanceRow> rows = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                rows.add(toRow(rs));
              }
            }
            return rows;
          }
        });
  }

  public Map<InstanceStatus, Long> countByStatus() {
    return Transactions.read(
        dataSource,
        "counting instances",
        connection -> {
          Map<InstanceStatus, Long> counts = new EnumMap<>(InstanceStatus.class);
          try (PreparedStatement select =
                  connection.prepareStatement(
                      "SELECT status, COUNT(*) FROM ax_instance GROUP BY status");
              ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
              counts.put(InstanceStatus.valueOf(rs.getString(1)), rs.getLong(2));
            }
          }
          return counts;
        });
  }

  private static InstanceRow toRow(ResultSet rs) throws SQLException {
    return new InstanceRow(
        rs.getString("instance_id"),
        rs.getString("task_id"),
        InstanceStatus.valueOf(rs.getString("status")),
        rs.getInt("attempt"),
        rs.getLong("due_at_ms"),
        rs.getString("owner"),
        (Long) rs.getObject("claimed_at_ms", Long.class),
        (Long) rs.getObject("finished_at_ms", Long.class),
        rs.getString("last_error"),
        rs.getString("trace_id"));
  }

  private static void auditBatch(
      Connection connection,
      List<String> chunk,
      String token,
      InstanceStatus from,
      InstanceStatus to,
      String actor,
      String reason,
      long nowMs)
      throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO ax_instance_log (instance_id, task_id, attempt, from_status, to_status,"
                + " actor, reason, at_ms) SELECT instance_id, task_id, attempt, ?, ?, ?, ?, ?"
                + " FROM ax_instance WHERE instance_id IN ("
                + Sql.placeholders(chunk.size())
                + ") AND batch_token = ?")) {
      insert.setString(1, from.name());
      insert.setString(2, to.name());
      insert.setString(3, actor);
      insert.setString(4, reason);
      insert.setLong(5, nowMs);
      int next = Sql.bindAll(insert, 6, chunk);
      insert.setString(next, token);
      insert.executeUpdate();
    }
  }

  private static int countOf(List<DueInstance> won, List<String> chunk) {
    int count = 0;
    java.util.Set<String> ids = new java.util.HashSet<>(chunk);
    for (DueInstance instance : won) {
      if (ids.contains(instance.instanceId())) {
        count++;
      }
    }
    return count;
  }

  private static void checkCount(int updated, int readBack, String what) {
    if (updated != readBack) {
      throw new IllegalStateException(
          what + " updated " + updated + " rows but read back " + readBack + " with its token");
    }
  }
}
