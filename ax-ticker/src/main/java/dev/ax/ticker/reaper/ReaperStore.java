package dev.ax.ticker.reaper;

import static dev.ax.common.model.InstanceStatus.DEAD;
import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.RUNNING;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.StatusTransitions;
import dev.ax.common.store.AfterFailure;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.FailureFollowUps;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.OutcomeRecording;
import dev.ax.common.store.Sql;
import dev.ax.common.store.TaskGate;
import dev.ax.common.store.Transactions;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The reaper's SQL over {@code ax_instance}: expired runs taken back or ended, DISPATCHED rows
 * nobody claimed (or a previous leader emitted) stamped again to be emitted again (that SQL in
 * {@link UnclaimedDispatches}). Only the ticker's {@link Reaper} uses it.
 *
 * <p>Every write is fenced by the leader's lease and conditional on what made the row a candidate
 * (the lease still expired, the row still unclaimed), re-checked in the UPDATE itself: a row
 * renewed, claimed or recorded between the select and the write is left alone.
 *
 * <p>Thread-safe (stateless over a pool).
 */
public final class ReaperStore {

  /**
   * The status-prefixed index every candidate select reads by, forced: {@code epoch < ?} has no
   * index of its own, and without the hint the optimizer scans the whole table for it. The move
   * that follows each select re-checks its condition, so a row that changed meanwhile is left
   * alone.
   */
  static final String STATUS_INDEX = "ax_instance_status_due";

  /** RUNNING rows whose lease expired, below the take-back bound. */
  static final String EXPIRED_RUNS =
      "SELECT instance_id, task_id FROM ax_instance FORCE INDEX ("
          + STATUS_INDEX
          + ") WHERE status = ? AND lease_until_ms < ? AND taken_back < ? LIMIT ?";

  /** RUNNING rows whose lease expired, at the take-back bound. */
  static final String RUNS_TAKEN_BACK_TOO_OFTEN =
      "SELECT instance_id, task_id, attempt, retry_base, taken_back, owner, due_at_ms,"
          + " claimed_at_ms, trace_id, flow_run_id"
          + " FROM ax_instance FORCE INDEX ("
          + STATUS_INDEX
          + ") WHERE status = ? AND lease_until_ms < ? AND taken_back >= ? LIMIT ?";

  /**
   * A RUNNING instance whose lease expired, as {@link #findRunsTakenBackTooOften} reads it.
   *
   * @param owner the dispatcher that died
   * @param takenBack take-backs of its current retry budget
   */
  record ExpiredRun(
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

  private final DataSource dataSource;
  private final Jdbc jdbc;
  private final UnclaimedDispatches unclaimed;

  public ReaperStore(DataSource dataSource) {
    this.dataSource = dataSource;
    this.jdbc = new Jdbc(dataSource);
    this.unclaimed = new UnclaimedDispatches(jdbc);
  }

  /**
   * Takes back runs whose lease expired before {@code nowMs} (their dispatcher died) and that were
   * taken back fewer than {@code maxTakebacks} times in their retry budget, through the {@link
   * TaskGate} in one transaction, by the state of each one's task:
   *
   * <ul>
   *   <li>ACTIVE: RUNNING → DISPATCHED, emitted again; the next claim starts the next attempt.
   *   <li>PAUSED: RUNNING → PAUSED; a RESUME fires it as the next attempt.
   *   <li>CANCELLED, DELETED or gone: RUNNING → CANCELLED; it never runs again.
   * </ul>
   *
   * Each take-back is counted ({@code taken_back}), so that it uses up no retry. Conditional on the
   * lease still being expired, so a run renewed meanwhile is left alone. Runs at the bound are
   * {@link #findRunsTakenBackTooOften}'s.
   *
   * @return the instances taken back to DISPATCHED, to be emitted again
   */
  List<DueInstance> reclaimExpiredRuns(LeaseFence fence, long nowMs, int limit, int maxTakebacks) {
    List<Map.Entry<String, String>> candidates =
        jdbc.query(
            "selecting expired runs",
            EXPIRED_RUNS,
            Jdbc.Binder.values(RUNNING.name(), nowMs, maxTakebacks, limit),
            rs -> Map.entry(rs.getString(1), rs.getString(2)));
    if (candidates.isEmpty()) {
      return List.of();
    }
    return jdbc.inPacketTransaction(
        "taking back " + candidates.size() + " expired run(s)",
        tx -> {
          Map<String, TaskGate.Held> gate =
              TaskGate.holdAll(
                  tx.statements(), candidates.stream().map(Map.Entry::getValue).toList());
          List<String> active = new ArrayList<>();
          List<String> held = new ArrayList<>();
          List<String> stopped = new ArrayList<>();
          for (Map.Entry<String, String> candidate : candidates) {
            TaskGate.Held task = gate.get(candidate.getValue());
            (task == null ? stopped : task.isActive() ? active : task.isPaused() ? held : stopped)
                .add(candidate.getKey());
          }
          if (!held.isEmpty()) {
            tx.move(
                "instance_id",
                held,
                takeBack(fence, nowMs, maxTakebacks, InstanceStatus.PAUSED)
                    .audit(
                        fence.holder(),
                        "run lease expired while its task is paused: PAUSED, a RESUME fires the"
                            + " next attempt"),
                nowMs,
                false);
          }
          if (!stopped.isEmpty()) {
            tx.move(
                "instance_id",
                stopped,
                takeBack(fence, nowMs, maxTakebacks, InstanceStatus.CANCELLED)
                    .set("finished_at_ms = ?", nowMs)
                    .audit(
                        fence.holder(),
                        "run lease expired and its task is cancelled or deleted: not run again"),
                nowMs,
                false);
          }
          return active.isEmpty()
              ? List.<DueInstance>of()
              : tx.move(
                  "instance_id",
                  active,
                  takeBack(fence, nowMs, maxTakebacks, DISPATCHED)
                      .set("epoch = ?, dispatched_at_ms = ?", fence.epoch(), nowMs)
                      .audit(fence.holder(), "run lease expired: taken back for the next attempt"),
                  nowMs,
                  false);
        });
  }

  /** RUNNING → {@code to} for runs whose lease is still expired, counted as a take-back. */
  private static BatchMove.Builder<DueInstance> takeBack(
      LeaseFence fence, long nowMs, int maxTakebacks, InstanceStatus to) {
    return BatchMove.from(RUNNING)
        .<DueInstance>to(to)
        .set("owner = NULL, lease_until_ms = NULL, taken_back = taken_back + 1")
        .where("lease_until_ms < ? AND taken_back < ?", nowMs, maxTakebacks)
        .fencedBy(fence)
        .readBack(DueInstance.COLUMNS, DueInstance::read);
  }

  /**
   * RUNNING instances whose lease expired before {@code nowMs} and that were taken back {@code
   * maxTakebacks} times already in their retry budget: not to be taken back again, but ended (see
   * {@link #endExpiredRuns}). At most {@code limit}.
   */
  List<ExpiredRun> findRunsTakenBackTooOften(long nowMs, int maxTakebacks, int limit) {
    return jdbc.query(
        "selecting runs taken back too often",
        RUNS_TAKEN_BACK_TOO_OFTEN,
        Jdbc.Binder.values(RUNNING.name(), nowMs, maxTakebacks, limit),
        rs ->
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

  /**
   * Ends runs whose dispatcher died and that may not be taken back again: RUNNING → FAILED (the
   * outcome's error) and at once → DEAD (the outcome's {@link AfterFailure.Dead} reason), audited,
   * in one transaction fenced by the leader's lease. Each is conditional on the row still being
   * RUNNING that attempt with its lease expired before {@code nowMs} and {@code maxTakebacks}
   * take-backs reached, so a run renewed or recorded meanwhile is left alone. The events each ended
   * run owes go into the outbox under {@code outboxToken} in the same transaction (see {@link
   * OutboxStore}), as a dispatcher's outcome's do.
   *
   * <p>One UPDATE per run, batched, not a {@link BatchMove}: each row gets its own error.
   *
   * @param events for each outcome, in order, the records it owes once recorded
   * @return the outcomes recorded, and those lost (renewed, recorded or taken over meanwhile)
   */
  OutcomeRecording endExpiredRuns(
      List<Outcome> outcomes,
      List<List<OutboxMessage>> events,
      String outboxToken,
      LeaseFence fence,
      int maxTakebacks,
      long nowMs) {
    if (outcomes.isEmpty()) {
      return OutcomeRecording.none();
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
      StatusTransitions.require(outcome.status(), DEAD);
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
          Set<String> wonRuns = new HashSet<>();
          List<Outcome> won = new ArrayList<>();
          List<OutboxMessage> owed = new ArrayList<>();
          List<AuditLog.Entry> audit = new ArrayList<>();
          for (int i = 0; i < outcomes.size(); i++) {
            if (counts[i] > 1) {
              throw new IllegalStateException(
                  "ending " + outcomes.get(i).instanceId() + " updated " + counts[i] + " rows");
            }
            if (counts[i] == 1) {
              Outcome outcome = outcomes.get(i);
              wonRuns.add(OutcomeRecording.runOf(outcome));
              won.add(outcome);
              owed.addAll(events.get(i));
              audit.add(AuditLog.Entry.runEnded(outcome, outcome.error()));
            }
          }
          AuditLog.append(connection, audit, fence.holder(), nowMs);
          FailureFollowUps.record(connection, won, fence.holder(), nowMs);
          OutboxStore.insert(connection, owed, outboxToken, nowMs);
          return OutcomeRecording.of(outcomes, wonRuns);
        });
  }

  /**
   * Re-stamps instances DISPATCHED before {@code olderThanMs} and never claimed (their due event
   * was lost, or every dispatcher was down), so they can be emitted again.
   *
   * @return the instances to emit again
   */
  List<DueInstance> restampUnclaimed(LeaseFence fence, long olderThanMs, long nowMs, int limit) {
    return unclaimed.restampUnclaimed(fence, olderThanMs, nowMs, limit);
  }

  /**
   * As {@link #restampUnclaimed}, while the {@code dispatch} switch holds the task groups {@code
   * held} accepts: their rows are left unclaimed on purpose, so they are not emitted again (nor
   * audited) but only get a new {@code dispatched_at_ms}, which keeps them out of the next passes'
   * reads; once the switch is on, they are emitted again after {@code AX_REAPER_UNCLAIMED_AFTER},
   * as any unclaimed row. Every other group's rows are re-stamped and returned as usual.
   */
  List<DueInstance> restampUnclaimedExcept(
      LeaseFence fence,
      long olderThanMs,
      long nowMs,
      int limit,
      java.util.function.Predicate<String> held) {
    return unclaimed.restampUnclaimedExcept(fence, olderThanMs, nowMs, limit, held);
  }

  /**
   * Re-stamps with this leader's epoch the instances a previous leader marked DISPATCHED that are
   * still unclaimed, so they can be emitted again at once. Dispatchers drop due events of an epoch
   * older than the newest they have seen; this is what makes dropping them lose nothing.
   *
   * @return the instances to emit again
   */
  List<DueInstance> adoptPredecessorDispatches(LeaseFence fence, long nowMs, int limit) {
    return unclaimed.adoptPredecessorDispatches(fence, nowMs, limit);
  }
}
