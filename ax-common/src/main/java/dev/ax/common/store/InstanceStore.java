package dev.ax.common.store;

import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.RUNNING;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.StatusTransitions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
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
 * <p>Batch moves (the ticker's dispatch, the dispatcher's claim) are one UPDATE over an IN list
 * that stamps a fresh {@code batch_token}; the rows carrying that token afterwards are exactly the
 * rows this caller won. The UPDATE, the audit INSERT and the read-back of a chunk travel to the
 * server as one packet, with the transaction's start and, where it is the last, its commit (see
 * {@link Transaction}): a claim is one round trip, and so is a firing that creates no successors.
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
                  "SELECT "
                      + DueInstance.COLUMNS
                      + " FROM ax_instance WHERE status = ? AND due_at_ms < ? ORDER BY due_at_ms"
                      + " LIMIT ?")) {
            select.setString(1, SCHEDULED.name());
            select.setLong(2, untilMs);
            select.setInt(3, limit);
            List<DueInstance> due = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                due.add(DueInstance.read(rs));
              }
            }
            return due;
          }
        });
  }

  /**
   * SCHEDULED → DISPATCHED for the given instances, only while {@code fence} holds.
   *
   * @return the instances this call moved (others were not SCHEDULED any more, or the fence is
   *     stale and nothing moved)
   */
  public List<DueInstance> markDispatched(
      Collection<String> instanceIds, LeaseFence fence, long nowMs) {
    return BatchMover.move(
        dataSource, "instance_id", new ArrayList<>(instanceIds), dispatchMove(fence, nowMs), nowMs);
  }

  private static BatchMove<DueInstance> dispatchMove(LeaseFence fence, long nowMs) {
    return BatchMove.from(SCHEDULED)
        .<DueInstance>to(DISPATCHED)
        .set("epoch = ?, dispatched_at_ms = ?", fence.epoch(), nowMs)
        .fencedBy(fence)
        .readBack(DueInstance.COLUMNS, DueInstance::read)
        .audit(fence.holder(), "due");
  }

  /**
   * RUNNING → DISPATCHED for runs whose lease expired before {@code nowMs} (their dispatcher died)
   * and that were taken back fewer than {@code maxTakebacks} times in their retry budget: the next
   * claim starts the next attempt, and the take-back is counted ({@code taken_back}), so that it
   * uses up no retry. Conditional on the lease still being expired, so a run renewed meanwhile is
   * left alone. Runs at the bound are {@link #findRunsTakenBackTooOften}'s.
   *
   * @return the instances taken back, to be emitted again
   */
  public List<DueInstance> reclaimExpiredRuns(
      LeaseFence fence, long nowMs, int limit, int maxTakebacks) {
    List<Object> ids =
        selectIds(
            "ax_instance_status_due",
            "status = ? AND lease_until_ms < ? AND taken_back < ?",
            List.of(RUNNING.name(), nowMs, maxTakebacks),
            limit);
    return BatchMover.move(
        dataSource,
        "instance_id",
        ids,
        BatchMove.from(RUNNING)
            .<DueInstance>to(DISPATCHED)
            .set(
                "owner = NULL, lease_until_ms = NULL, epoch = ?, dispatched_at_ms = ?,"
                    + " taken_back = taken_back + 1",
                fence.epoch(),
                nowMs)
            .where("lease_until_ms < ? AND taken_back < ?", nowMs, maxTakebacks)
            .fencedBy(fence)
            .readBack(DueInstance.COLUMNS, DueInstance::read)
            .audit(fence.holder(), "run lease expired: taken back for the next attempt"),
        nowMs);
  }

  /**
   * A RUNNING instance whose lease expired, as {@link #findRunsTakenBackTooOften} reads it.
   *
   * @param owner the dispatcher that died
   * @param takenBack take-backs of its current retry budget
   */
  public record ExpiredRun(
      String instanceId,
      String taskId,
      int attempt,
      int retryBase,
      int takenBack,
      String owner,
      long dueAtMs,
      long claimedAtMs,
      String traceId,
      String flowRunId) {}

  /**
   * RUNNING instances whose lease expired before {@code nowMs} and that were taken back {@code
   * maxTakebacks} times already in their retry budget: not to be taken back again, but ended (see
   * {@link #endExpiredRuns}). At most {@code limit}.
   */
  public List<ExpiredRun> findRunsTakenBackTooOften(long nowMs, int maxTakebacks, int limit) {
    return Transactions.read(
        dataSource,
        "selecting runs taken back too often",
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT instance_id, task_id, attempt, retry_base, taken_back, owner, due_at_ms,"
                      + " claimed_at_ms, trace_id, flow_run_id"
                      + " FROM ax_instance FORCE INDEX (ax_instance_status_due)"
                      + " WHERE status = ? AND lease_until_ms < ? AND taken_back >= ? LIMIT ?")) {
            select.setString(1, RUNNING.name());
            select.setLong(2, nowMs);
            select.setInt(3, maxTakebacks);
            select.setInt(4, limit);
            List<ExpiredRun> runs = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                runs.add(
                    new ExpiredRun(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getInt(3),
                        rs.getInt(4),
                        rs.getInt(5),
                        rs.getString(6),
                        rs.getLong(7),
                        rs.getLong(8),
                        rs.getString(9),
                        InstanceIds.flowRunOf(rs.getString(1), rs.getString(10))));
              }
            }
            return runs;
          }
        });
  }

  /**
   * Ends runs whose dispatcher died and that may not be taken back again: RUNNING → FAILED (the
   * outcome's error) and at once → DEAD (the outcome's {@link AfterFailure.Dead} reason), audited,
   * in one transaction fenced by the leader's lease. Each is conditional on the row still being
   * RUNNING that attempt with its lease expired before {@code nowMs} and {@code maxTakebacks}
   * take-backs reached, so a run renewed or recorded meanwhile is left alone. The events each ended
   * run owes go into the outbox under {@code outboxToken} in the same transaction (see {@link
   * OutboxStore}), as a dispatcher's outcome's do.
   *
   * @param events for each outcome, in order, the records it owes once recorded
   * @return for each outcome, in order, whether it was recorded
   */
  public List<Boolean> endExpiredRuns(
      List<Outcome> outcomes,
      List<List<OutboxMessage>> events,
      String outboxToken,
      LeaseFence fence,
      int maxTakebacks,
      long nowMs) {
    if (outcomes.isEmpty()) {
      return List.of();
    }
    if (events.size() != outcomes.size()) {
      throw new IllegalArgumentException(
          events.size() + " event lists for " + outcomes.size() + " outcomes");
    }
    for (Outcome outcome : outcomes) {
      StatusTransitions.require(RUNNING, outcome.status());
      if (!(outcome.after() instanceof AfterFailure.Dead)) {
        throw new IllegalArgumentException("an expired run ends DEAD: " + outcome);
      }
      StatusTransitions.require(outcome.status(), InstanceStatus.DEAD);
    }
    return Transactions.inTransaction(
        dataSource,
        "ending " + outcomes.size() + " run(s) taken back too often",
        connection -> {
          int[] counts;
          try (PreparedStatement update =
              connection.prepareStatement(
                  "UPDATE ax_instance SET status = ?, finished_at_ms = ?, last_error = ?,"
                      + " lease_until_ms = NULL, updated_at_ms = ?"
                      + " WHERE instance_id = ? AND status = ? AND attempt = ?"
                      + " AND lease_until_ms < ? AND taken_back >= ? AND "
                      + LeaseFence.CONDITION)) {
            for (Outcome outcome : outcomes) {
              update.setString(1, outcome.status().name());
              update.setLong(2, outcome.finishedAtMs());
              update.setString(3, Sql.truncate(outcome.error(), 2048));
              update.setLong(4, nowMs);
              update.setString(5, outcome.instanceId());
              update.setString(6, RUNNING.name());
              update.setInt(7, outcome.attempt());
              update.setLong(8, nowMs);
              update.setInt(9, maxTakebacks);
              update.setString(10, fence.leaseName());
              update.setString(11, fence.holder());
              update.setLong(12, fence.epoch());
              update.addBatch();
            }
            counts = update.executeBatch();
          }
          List<Boolean> ended = new ArrayList<>(outcomes.size());
          List<Outcome> won = new ArrayList<>();
          List<OutboxMessage> owed = new ArrayList<>();
          List<AuditLog.Entry> audit = new ArrayList<>();
          for (int i = 0; i < outcomes.size(); i++) {
            if (counts[i] > 1) {
              throw new IllegalStateException(
                  "ending " + outcomes.get(i).instanceId() + " updated " + counts[i] + " rows");
            }
            ended.add(counts[i] == 1);
            if (counts[i] == 1) {
              Outcome outcome = outcomes.get(i);
              won.add(outcome);
              owed.addAll(events.get(i));
              audit.add(
                  new AuditLog.Entry(
                      outcome.instanceId(),
                      outcome.taskId(),
                      outcome.attempt(),
                      RUNNING,
                      outcome.status(),
                      Sql.truncate(outcome.error(), 512)));
            }
          }
          AuditLog.append(connection, audit, fence.holder(), nowMs);
          recordAfterFailure(connection, won, fence.holder(), nowMs);
          if (!owed.isEmpty()) {
            OutboxStore.insert(connection, owed, outboxToken, nowMs);
          }
          return ended;
        });
  }

  /**
   * Re-stamps instances DISPATCHED before {@code olderThanMs} and never claimed (their due event
   * was lost, or every dispatcher was down), so they can be emitted again.
   *
   * @return the instances to emit again
   */
  public List<DueInstance> restampUnclaimed(
      LeaseFence fence, long olderThanMs, long nowMs, int limit) {
    return restampDispatched(
        fence, "dispatched_at_ms", olderThanMs, "not claimed in time: emitted again", nowMs, limit);
  }

  /**
   * Re-stamps with this leader's epoch the instances a previous leader marked DISPATCHED that are
   * still unclaimed, so they can be emitted again at once. Dispatchers drop due events of an epoch
   * older than the newest they have seen; this is what makes dropping them lose nothing.
   *
   * @return the instances to emit again
   */
  public List<DueInstance> adoptPredecessorDispatches(LeaseFence fence, long nowMs, int limit) {
    return restampDispatched(
        fence,
        "epoch",
        fence.epoch(),
        "dispatched by a previous leader: emitted again at epoch " + fence.epoch(),
        nowMs,
        limit);
  }

  /**
   * DISPATCHED → DISPATCHED, stamped with this leader's epoch and {@code nowMs}, for unclaimed rows
   * whose {@code column} (a constant of this class) is below {@code below}.
   */
  private List<DueInstance> restampDispatched(
      LeaseFence fence, String column, long below, String reason, long nowMs, int limit) {
    List<Object> ids =
        selectIds(
            "ax_instance_status_due",
            "status = ? AND " + column + " < ?",
            List.of(DISPATCHED.name(), below),
            limit);
    return BatchMover.move(
        dataSource,
        "instance_id",
        ids,
        BatchMove.from(DISPATCHED)
            .<DueInstance>to(DISPATCHED)
            .set("epoch = ?, dispatched_at_ms = ?", fence.epoch(), nowMs)
            .where(column + " < ?", below)
            .fencedBy(fence)
            .readBack(DueInstance.COLUMNS, DueInstance::read)
            .audit(fence.holder(), reason),
        nowMs);
  }

  /** What one firing of the ticker did. */
  public record FireResult(
      List<DueInstance> dispatched, List<DueInstance> skipped, Map<String, Long> created) {}

  /**
   * One ticker firing, in one transaction fenced by the leader's lease: SCHEDULED → DISPATCHED for
   * {@code dispatchSeqs}, SCHEDULED → SKIPPED for each group of {@code skipSeqsByReason}, and, for
   * each row that moved, its successors in {@code successorsByInstanceId} (the next firings of
   * periodic tasks), created SCHEDULED. A crash cannot leave a periodic task without its next
   * firing, and a stale leader moves and creates nothing. Without successors to create (one-shot
   * tasks only), the last move's packet commits: one round trip for a batch of up to 500.
   */
  public FireResult fire(
      Collection<Long> dispatchSeqs,
      Map<String, ? extends Collection<Long>> skipSeqsByReason,
      LeaseFence fence,
      long nowMs,
      Map<String, List<NewInstance>> successorsByInstanceId) {
    List<Map.Entry<List<Object>, BatchMove<DueInstance>>> moves = new ArrayList<>();
    if (!dispatchSeqs.isEmpty()) {
      moves.add(Map.entry(new ArrayList<>(dispatchSeqs), dispatchMove(fence, nowMs)));
    }
    for (Map.Entry<String, ? extends Collection<Long>> group : skipSeqsByReason.entrySet()) {
      if (!group.getValue().isEmpty()) {
        moves.add(
            Map.entry(new ArrayList<>(group.getValue()), skipMove(fence, group.getKey(), nowMs)));
      }
    }
    if (moves.isEmpty()) {
      return new FireResult(List.of(), List.of(), Map.of());
    }
    boolean mayCreate = !successorsByInstanceId.isEmpty();
    return Transactions.inPacketTransaction(
        dataSource,
        "firing " + dispatchSeqs.size() + " instance(s)",
        transaction -> {
          List<List<DueInstance>> movedByMove = new ArrayList<>(moves.size());
          for (int i = 0; i < moves.size(); i++) {
            boolean commits = !mayCreate && i == moves.size() - 1;
            Map.Entry<List<Object>, BatchMove<DueInstance>> move = moves.get(i);
            movedByMove.add(
                BatchMover.moveIn(
                    transaction, "seq", move.getKey(), move.getValue(), nowMs, commits));
          }
          List<DueInstance> dispatched = dispatchSeqs.isEmpty() ? List.of() : movedByMove.get(0);
          List<DueInstance> skipped = new ArrayList<>();
          movedByMove
              .subList(dispatchSeqs.isEmpty() ? 0 : 1, moves.size())
              .forEach(skipped::addAll);
          List<NewInstance> successors = new ArrayList<>();
          for (List<DueInstance> moved : movedByMove) {
            for (DueInstance row : moved) {
              successors.addAll(successorsByInstanceId.getOrDefault(row.instanceId(), List.of()));
            }
          }
          Map<String, Long> created =
              successors.isEmpty()
                  ? Map.of()
                  : InstanceInserts.insert(
                      transaction.connection(), successors, fence.holder(), nowMs);
          return new FireResult(dispatched, skipped, created);
        });
  }

  private static BatchMove<DueInstance> skipMove(LeaseFence fence, String reason, long nowMs) {
    return BatchMove.from(SCHEDULED)
        .<DueInstance>to(InstanceStatus.SKIPPED)
        .set("finished_at_ms = ?", nowMs)
        .fencedBy(fence)
        .readBack(DueInstance.COLUMNS, DueInstance::read)
        .audit(fence.holder(), reason);
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

  /** The SCHEDULED rows among {@code seqs} (what the wheel fired), oldest due first. */
  public List<DueInstance> findScheduledBySeq(Collection<Long> seqs) {
    if (seqs.isEmpty()) {
      return List.of();
    }
    return Transactions.read(
        dataSource,
        "reading " + seqs.size() + " due instance(s)",
        connection -> {
          List<DueInstance> due = new ArrayList<>(seqs.size());
          for (List<Long> chunk : Sql.chunks(seqs)) {
            try (PreparedStatement select =
                connection.prepareStatement(
                    "SELECT "
                        + DueInstance.COLUMNS
                        + " FROM ax_instance WHERE seq IN ("
                        + Sql.placeholders(chunk.size())
                        + ") AND status = ?")) {
              int index = 1;
              for (Long seq : chunk) {
                select.setLong(index++, seq);
              }
              select.setString(index, SCHEDULED.name());
              try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                  due.add(DueInstance.read(rs));
                }
              }
            }
          }
          due.sort(Comparator.comparingLong(DueInstance::dueAtMs));
          return due;
        });
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

  /** A FIXED_DELAY task whose chain has no next firing, and when its last run ended. */
  public record BrokenChain(String taskId, long lastFinishedAtMs) {}

  /**
   * FIXED_DELAY tasks with no instance SCHEDULED, DISPATCHED or RUNNING whose last run ended before
   * {@code finishedBeforeMs}: their next firing was lost (its completion event never reached the
   * chainer). At most {@code limit}.
   */
  public List<BrokenChain> findBrokenFixedDelayChains(long finishedBeforeMs, int limit) {
    return Transactions.read(
        dataSource,
        "looking for broken fixed-delay chains",
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  // The active FIXED_DELAY tasks first (by their index), then each one's
                  // instances by task: without the join order and hints both MySQL and MariaDB
                  // may scan every instance row to find the few FIXED_DELAY ones.
                  "SELECT t.task_id, MAX(i.finished_at_ms)"
                      + " FROM ax_task t FORCE INDEX (ax_task_trigger_state)"
                      + " STRAIGHT_JOIN ax_instance i FORCE INDEX (ax_instance_task)"
                      + " ON i.task_id = t.task_id"
                      + " WHERE t.trigger_type = 'FIXED_DELAY' AND t.state = 'ACTIVE'"
                      + " GROUP BY t.task_id"
                      + " HAVING SUM(i.status IN (?, ?, ?, ?)) = 0 AND MAX(i.finished_at_ms) < ?"
                      + " LIMIT ?")) {
            select.setString(1, SCHEDULED.name());
            select.setString(2, DISPATCHED.name());
            select.setString(3, RUNNING.name());
            select.setString(4, InstanceStatus.RETRYING.name()); // not over: a retry follows
            select.setLong(5, finishedBeforeMs);
            select.setInt(6, limit);
            List<BrokenChain> broken = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                broken.add(new BrokenChain(rs.getString(1), rs.getLong(2)));
              }
            }
            return broken;
          }
        });
  }

  /** The ids of the SCHEDULED instances of one task. */
  public List<String> findScheduledOf(String taskId) {
    return Transactions.read(
        dataSource,
        "reading scheduled instances of " + taskId,
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT instance_id FROM ax_instance WHERE task_id = ? AND status = ?")) {
            select.setString(1, taskId);
            select.setString(2, SCHEDULED.name());
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

  /** Tasks among {@code taskIds} that have an instance DISPATCHED or RUNNING now. */
  public Set<String> tasksInFlight(Collection<String> taskIds) {
    Set<String> busy = new HashSet<>();
    if (taskIds.isEmpty()) {
      return busy;
    }
    return Transactions.read(
        dataSource,
        "checking runs in flight",
        connection -> {
          for (List<String> chunk : Sql.chunks(taskIds)) {
            try (PreparedStatement select =
                connection.prepareStatement(
                    "SELECT DISTINCT task_id FROM ax_instance WHERE task_id IN ("
                        + Sql.placeholders(chunk.size())
                        + ") AND status IN (?, ?)")) {
              int next = Sql.bindAll(select, 1, chunk);
              select.setString(next++, DISPATCHED.name());
              select.setString(next, RUNNING.name());
              try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                  busy.add(rs.getString(1));
                }
              }
            }
          }
          return busy;
        });
  }

  /** A SCHEDULED instance as the ticker's window loader sees it. */
  public record WindowEntry(long seq, long dueAtMs, String triggerGroup, String taskId) {}

  /**
   * SCHEDULED instances due before {@code untilMs} and after the key {@code (afterDueMs,
   * afterSeq)}, ordered by (due, seq), at most {@code limit}: one page of the ticker's window.
   */
  public List<WindowEntry> findWindowPage(long afterDueMs, long afterSeq, long untilMs, int limit) {
    return Transactions.read(
        dataSource,
        "loading the ticker window",
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT i.seq, i.due_at_ms, t.trigger_group, i.task_id FROM ax_instance i"
                      + " JOIN ax_task t ON t.task_id = i.task_id"
                      + " WHERE i.status = ? AND i.due_at_ms < ?"
                      + " AND (i.due_at_ms > ? OR (i.due_at_ms = ? AND i.seq > ?))"
                      + " ORDER BY i.due_at_ms, i.seq LIMIT ?")) {
            select.setString(1, SCHEDULED.name());
            select.setLong(2, untilMs);
            select.setLong(3, afterDueMs);
            select.setLong(4, afterDueMs);
            select.setLong(5, afterSeq);
            select.setInt(6, limit);
            List<WindowEntry> page = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                page.add(
                    new WindowEntry(
                        rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4)));
              }
            }
            return page;
          }
        });
  }

  /**
   * @param indexName the status-prefixed index to read by, forced: {@code epoch < ?} has no index
   *     of its own, and without the hint the optimizer scans the whole table for it
   */
  private List<Object> selectIds(String indexName, String where, List<Object> values, int limit) {
    return Transactions.read(
        dataSource,
        "selecting instances",
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT instance_id FROM ax_instance FORCE INDEX ("
                      + indexName
                      + ") WHERE "
                      + where
                      + " LIMIT ?")) {
            int index = 1;
            for (Object value : values) {
              select.setObject(index++, value);
            }
            select.setInt(index, limit);
            List<Object> ids = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                ids.add(rs.getString(1));
              }
            }
            return ids;
          }
        });
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
    recordAfterFailure(connection, followed, owner, nowMs);
    return won;
  }

  /** FAILED/TIMEOUT → RETRYING or DEAD for outcomes just recorded in this transaction. */
  private static void recordAfterFailure(
      Connection connection, List<Outcome> outcomes, String owner, long nowMs) throws SQLException {
    if (outcomes.isEmpty()) {
      return;
    }
    List<AuditLog.Entry> audit = new ArrayList<>();
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE ax_instance SET status = ?, next_attempt_at_ms = ?, updated_at_ms = ?"
                + " WHERE instance_id = ? AND status = ? AND attempt = ?")) {
      for (Outcome outcome : outcomes) {
        InstanceStatus to;
        Long nextAttemptAtMs;
        String reason;
        if (outcome.after() instanceof AfterFailure.Retry retry) {
          to = InstanceStatus.RETRYING;
          nextAttemptAtMs = retry.atMs();
          reason = retry.reason();
        } else {
          to = InstanceStatus.DEAD;
          nextAttemptAtMs = null;
          reason = ((AfterFailure.Dead) outcome.after()).reason();
        }
        StatusTransitions.require(outcome.status(), to);
        update.setString(1, to.name());
        update.setObject(2, nextAttemptAtMs);
        update.setLong(3, nowMs);
        update.setString(4, outcome.instanceId());
        update.setString(5, outcome.status().name());
        update.setInt(6, outcome.attempt());
        update.addBatch();
        audit.add(
            new AuditLog.Entry(
                outcome.instanceId(),
                outcome.taskId(),
                outcome.attempt(),
                outcome.status(),
                to,
                Sql.truncate(reason, 512)));
      }
      int[] counts = update.executeBatch();
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] != 1) {
          throw new IllegalStateException(
              "follow-up of " + outcomes.get(i).instanceId() + " updated " + counts[i] + " rows");
        }
      }
    }
    AuditLog.append(connection, audit, owner, nowMs);
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
