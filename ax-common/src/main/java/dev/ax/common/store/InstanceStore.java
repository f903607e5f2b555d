package dev.ax.common.store;

import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.RUNNING;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.StatusTransitions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Instances in {@code ax_instance}. Every status change is one conditional UPDATE ({@code WHERE
 * status = ?}, mirroring {@link StatusTransitions}) plus its audit rows, in one transaction. A row
 * that did not match is a lost race, reported by leaving it out of the result, never thrown.
 *
 * <p>The dispatcher's claim is a {@link BatchMove}: one UPDATE over an IN list that stamps a fresh
 * {@code batch_token}; the rows carrying that token afterwards are exactly the rows this caller
 * won. The UPDATE, the audit INSERT and the read-back of a chunk travel to the server as one
 * packet, with the transaction's start and its commit (see {@link Transaction}): a claim is one
 * round trip.
 *
 * <p>The ticker's and the reaper's SQL is not here: each stage owns its role store (the ticker's
 * {@code FiringStore} and {@code ReaperStore}, the retry stage's {@code RetryStore}).
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

  /**
   * Creates SCHEDULED instances that do not exist yet (idempotent on instance id), e.g. the next
   * firing of a fixed-delay task after its run ended.
   *
   * @return the numeric key of each instance created, by instance id
   */
  public Map<String, Long> create(List<NewInstance> instances, String actor, long nowMs) {
    if (instances.isEmpty()) {
      return Map.of();
    }
    return Transactions.inTransaction(
        dataSource,
        "creating " + instances.size() + " instance(s)",
        connection -> InstanceInserts.insert(connection, instances, actor, nowMs));
  }

  /** One attempt a dispatcher is running, for lease renewal. */
  public record RunKey(String instanceId, int attempt) {}

  /**
   * Extends the run lease of attempts this owner is still running (RUNNING, this owner, this
   * attempt), so the reaper only takes back runs whose dispatcher really died. Not a status change:
   * no audit row.
   *
   * @return how many leases were extended (fewer when a run was taken back meanwhile)
   */
  public int renewLeases(Collection<RunKey> runs, String owner, long leaseUntilMs, long nowMs) {
    if (runs.isEmpty()) {
      return 0;
    }
    return Transactions.inTransaction(
        dataSource,
        "renewing " + runs.size() + " run lease(s)",
        connection -> {
          // One key per instance: only its latest attempt can still match the row.
          Map<String, RunKey> latest = new HashMap<>();
          for (RunKey run : runs) {
            latest.merge(run.instanceId(), run, (a, b) -> a.attempt() >= b.attempt() ? a : b);
          }
          int renewed = 0;
          for (List<RunKey> chunk : Sql.chunks(latest.values())) {
            String attemptCase = caseByInstanceId(chunk.size());
            try (PreparedStatement update =
                connection.prepareStatement(
                    // Not (instance_id, attempt) IN (...): see recordSuccesses.
                    "UPDATE ax_instance FORCE INDEX (PRIMARY) SET lease_until_ms = ?,"
                        + " updated_at_ms = ? WHERE instance_id IN ("
                        + Sql.placeholders(chunk.size())
                        + ") AND attempt = "
                        + attemptCase
                        + " AND status = ? AND owner = ?")) {
              int index = 1;
              update.setLong(index++, leaseUntilMs);
              update.setLong(index++, nowMs);
              for (RunKey run : chunk) {
                update.setString(index++, run.instanceId());
              }
              for (RunKey run : chunk) {
                update.setString(index++, run.instanceId());
                update.setInt(index++, run.attempt());
              }
              update.setString(index++, RUNNING.name());
              update.setString(index, owner);
              renewed += update.executeUpdate();
            }
          }
          return renewed;
        });
  }

  /** {@code CASE instance_id WHEN ? THEN ? ... END} with {@code count} branches. */
  private static String caseByInstanceId(int count) {
    return "CASE instance_id" + " WHEN ? THEN ?".repeat(count) + " END";
  }

  /**
   * DISPATCHED → RUNNING for the given instances that are due at {@code nowMs}, owned by {@code
   * owner} until {@code leaseUntilMs}, with the attempt number incremented. An instance not due yet
   * is never claimed: nothing starts before its due time, whoever emitted it.
   *
   * @return the instances this dispatcher won; the rest belong to someone else or are not due
   */
  public List<ClaimedInstance> claim(
      Collection<String> instanceIds, String owner, long leaseUntilMs, long nowMs) {
    if (instanceIds.isEmpty()) {
      return List.of();
    }
    return Transactions.inPacketTransaction(
        dataSource,
        "claiming " + instanceIds.size() + " instance(s)",
        transaction ->
            BatchMover.moveIn(
                transaction,
                "instance_id",
                new ArrayList<>(instanceIds),
                claimMove(owner, leaseUntilMs, nowMs),
                nowMs,
                true));
  }

  /** DISPATCHED → RUNNING for rows due at {@code nowMs}. */
  private static BatchMove<ClaimedInstance> claimMove(String owner, long leaseUntilMs, long nowMs) {
    return BatchMove.from(DISPATCHED)
        .<ClaimedInstance>to(RUNNING)
        .set(
            "attempt = attempt + 1, owner = ?, lease_until_ms = ?, claimed_at_ms = ?",
            owner,
            leaseUntilMs,
            nowMs)
        .where("due_at_ms <= ?", nowMs)
        .readBack(
            "instance_id, task_id, task_version, attempt, due_at_ms, trace_id, retry_base, seq,"
                + " flow_run_id, taken_back",
            rs ->
                new ClaimedInstance(
                    rs.getString(1),
                    rs.getString(2),
                    rs.getInt(3),
                    rs.getInt(4),
                    rs.getLong(5),
                    nowMs,
                    rs.getString(6),
                    rs.getInt(7),
                    rs.getLong(8),
                    InstanceIds.flowRunOf(rs.getString(1), rs.getString(9)),
                    rs.getInt(10)))
        .audit(owner, "claimed");
  }

  /**
   * RUNNING → SUCCESS / FAILED / TIMEOUT, each only if this owner still holds that attempt.
   *
   * @return for each outcome, in order, whether it was recorded (false: the run was taken back)
   */
  public List<Boolean> recordOutcomes(List<Outcome> outcomes, String owner, long nowMs) {
    return recordOutcomes(outcomes, List.of(), null, owner, nowMs);
  }

  /**
   * As {@link #recordOutcomes(List, String, long)}, and in the same transaction puts the events
   * each recorded outcome owes into the outbox under {@code outboxToken} (see {@link OutboxStore}):
   * an outcome is never committed without its events.
   *
   * @param events for each outcome, in order, the records it owes once recorded (empty for none);
   *     an empty list for no outcome at all
   */
  public List<Boolean> recordOutcomes(
      List<Outcome> outcomes,
      List<List<OutboxMessage>> events,
      String outboxToken,
      String owner,
      long nowMs) {
    if (outcomes.isEmpty()) {
      return List.of();
    }
    if (!events.isEmpty() && events.size() != outcomes.size()) {
      throw new IllegalArgumentException(
          events.size() + " event lists for " + outcomes.size() + " outcomes");
    }
    boolean owesEvents = events.stream().anyMatch(list -> !list.isEmpty());
    for (Outcome outcome : outcomes) {
      StatusTransitions.require(RUNNING, outcome.status());
    }
    return Transactions.inPacketTransaction(
        dataSource,
        "recording " + outcomes.size() + " outcome(s)",
        transaction -> {
          Set<String> won = new HashSet<>();
          // Successes carry no error: one UPDATE per chunk for all of them, which needs each
          // instance once (its attempt is matched by instance id); a second attempt of the same
          // instance in one batch (a run taken back and claimed again) goes one by one.
          List<Outcome> successes = new ArrayList<>();
          List<Outcome> others = new ArrayList<>();
          Set<String> batched = new HashSet<>();
          for (Outcome outcome : outcomes) {
            boolean success = outcome.status() == InstanceStatus.SUCCESS && outcome.error() == null;
            (success && batched.add(outcome.instanceId()) ? successes : others).add(outcome);
          }
          List<List<Outcome>> chunks = Sql.chunks(successes);
          for (int c = 0; c < chunks.size(); c++) {
            boolean commits = !owesEvents && others.isEmpty() && c == chunks.size() - 1;
            won.addAll(recordSuccesses(transaction, chunks.get(c), owner, nowMs, commits));
          }
          if (!others.isEmpty()) {
            transaction.ensureBegun();
            won.addAll(recordOneByOne(transaction.connection(), others, owner, nowMs));
          }
          List<Boolean> recorded = new ArrayList<>(outcomes.size());
          List<OutboxMessage> owed = new ArrayList<>();
          for (int i = 0; i < outcomes.size(); i++) {
            Outcome outcome = outcomes.get(i);
            boolean wins = won.contains(outcome.instanceId() + "#" + outcome.attempt());
            recorded.add(wins);
            if (wins && owesEvents) {
              owed.addAll(events.get(i));
            }
          }
          if (!owed.isEmpty()) {
            transaction.ensureBegun();
            OutboxStore.insert(transaction.connection(), owed, outboxToken, nowMs);
          }
          return recorded;
        });
  }

  /**
   * RUNNING → SUCCESS for a chunk, conditional on (instance, attempt) and owner, with its audit
   * rows and the read-back of the winners in one packet (see {@link #moveIn}); returns the winners.
   */
  private static Set<String> recordSuccesses(
      Transaction transaction, List<Outcome> chunk, String owner, long nowMs, boolean commits)
      throws SQLException {
    String token = UUID.randomUUID().toString();
    String in = "(" + Sql.placeholders(chunk.size()) + ")";
    String begin = transaction.begin();
    String commit = commits ? transaction.commit() : "";
    String sql =
        begin
            + "UPDATE ax_instance FORCE INDEX (PRIMARY) SET status = ?, finished_at_ms = "
            + caseByInstanceId(chunk.size())
            + ", last_error = NULL, lease_until_ms = NULL, batch_token = ?, updated_at_ms = ?"
            // Not (instance_id, attempt) IN (...): with the primary key forced, MariaDB reads a
            // row-value IN list by scanning the whole key. The key list is a range, the attempt a
            // filter.
            + " WHERE instance_id IN "
            + in
            + " AND attempt = "
            + caseByInstanceId(chunk.size())
            + " AND status = ? AND owner = ?"
            + BatchMover.auditAndReadBack("instance_id", in, "instance_id, attempt")
            + commit;
    List<String> ids = chunk.stream().map(Outcome::instanceId).toList();
    try (PreparedStatement packet = transaction.connection().prepareStatement(sql)) {
      int index = 1;
      packet.setString(index++, InstanceStatus.SUCCESS.name());
      for (Outcome outcome : chunk) {
        packet.setString(index++, outcome.instanceId());
        packet.setLong(index++, outcome.finishedAtMs());
      }
      packet.setString(index++, token);
      packet.setLong(index++, nowMs);
      index = BatchMover.bindKeys(packet, index, ids);
      for (Outcome outcome : chunk) {
        packet.setString(index++, outcome.instanceId());
        packet.setInt(index++, outcome.attempt());
      }
      packet.setString(index++, RUNNING.name());
      packet.setString(index++, owner);
      BatchMover.bindAuditAndReadBack(
          packet, index, RUNNING, InstanceStatus.SUCCESS, owner, "completed", nowMs, ids, token);
      return new HashSet<>(
          BatchMover.sendMovePacket(
              packet,
              !begin.isEmpty(),
              !commit.isEmpty(),
              rs -> rs.getString(1) + "#" + rs.getInt(2),
              "recording successes"));
    }
  }

  /** Failures and timeouts, each with its own error: one conditional UPDATE per outcome. */
  private static Set<String> recordOneByOne(
      Connection connection, List<Outcome> outcomes, String owner, long nowMs) throws SQLException {
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
    Set<String> won = new HashSet<>();
    List<AuditLog.Entry> audit = new ArrayList<>();
    for (int i = 0; i < outcomes.size(); i++) {
      if (counts[i] > 1) {
        throw new IllegalStateException(
            "outcome of " + outcomes.get(i).instanceId() + " updated " + counts[i] + " rows");
      }
      if (counts[i] == 1) {
        Outcome outcome = outcomes.get(i);
        won.add(outcome.instanceId() + "#" + outcome.attempt());
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
    List<Outcome> followed = new ArrayList<>();
    for (Outcome outcome : outcomes) {
      if (outcome.after() != null && won.contains(outcome.instanceId() + "#" + outcome.attempt())) {
        followed.add(outcome);
      }
    }
    AfterFailureUpdates.apply(connection, followed, owner, nowMs);
    return won;
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

  /**
   * Every instance of one flow run (the instance that started it, whose id is the flow run id, and
   * every instance that joined it), oldest created first.
   */
  public List<InstanceRow> findByFlowRun(String flowRunId) {
    return Transactions.read(
        dataSource,
        "reading flow run " + flowRunId,
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT "
                      + COLUMNS
                      + " FROM ax_instance WHERE instance_id = ? OR flow_run_id = ?"
                      + " ORDER BY created_at_ms, seq")) {
            select.setString(1, flowRunId);
            select.setString(2, flowRunId);
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
}
