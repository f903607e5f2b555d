package dev.ax.retry;

import static dev.ax.common.model.InstanceStatus.CANCELLED;
import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.PAUSED;
import static dev.ax.common.model.InstanceStatus.RETRYING;
import static dev.ax.common.model.InstanceStatus.RUNNING;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.TaskGate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The retry stage's SQL over {@code ax_instance}: the RETRYING instances its wheel is rebuilt from,
 * the move that dispatches those whose backoff is over, and the count its concurrency bound reads.
 * Only the retry stage uses it.
 *
 * <p>Thread-safe (stateless over a pool).
 */
final class RetryStore {

  /** A RETRYING instance waiting for its next attempt. */
  record PendingRetry(long seq, String taskId, long nextAttemptAtMs) {}

  /**
   * The rescan: RETRYING rows whose next attempt is due before a time, soonest first, by the index
   * on {@code retry_at_ms} (V20: the next attempt while RETRYING, NULL otherwise), so neither read
   * nor order costs more as the RETRYING rows grow, and no other status change writes the index.
   * Bound: the status (RETRYING), the time, the limit.
   */
  static final String PENDING_RETRIES =
      "SELECT seq, task_id, next_attempt_at_ms FROM ax_instance FORCE INDEX (ax_instance_retry_at)"
          + " WHERE status = ? AND retry_at_ms < ? ORDER BY retry_at_ms LIMIT ?";

  /** The RETRYING rows among the seqs of {@code in} (placeholders), then the status. */
  static String retryingBySeqSql(String in) {
    return "SELECT seq, task_id FROM ax_instance WHERE seq IN (" + in + ") AND status = ?";
  }

  /** Retried attempts DISPATCHED (attempt 1 on) and RUNNING (attempt 2 on): live rows only. */
  static final String RETRIES_IN_FLIGHT =
      "SELECT (SELECT COUNT(*) FROM ax_instance FORCE INDEX (ax_instance_status_due)"
          + " WHERE status = ? AND attempt >= 1)"
          + " + (SELECT COUNT(*) FROM ax_instance FORCE INDEX (ax_instance_status_due)"
          + " WHERE status = ? AND attempt >= 2)";

  private final Jdbc jdbc;

  RetryStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /** RETRYING instances whose next attempt is due before {@code beforeMs}, soonest first. */
  List<PendingRetry> findPendingRetries(long beforeMs, int limit) {
    return jdbc.query(
        "reading pending retries",
        PENDING_RETRIES,
        Jdbc.Binder.values(RETRYING.name(), beforeMs, limit),
        rs -> new PendingRetry(rs.getLong(1), rs.getString(2), rs.getLong(3)));
  }

  /**
   * The instances (by seq) whose backoff is over at {@code nowMs}, each moved as its task's state
   * says, read under the task's shared lock ({@link TaskGate}) in the transaction of the moves, so
   * a PAUSE, CANCEL or DELETE committed before is never overtaken, and one that comes later waits
   * for this commit and then finds the instance DISPATCHED (and moves it as it moves any):
   *
   * <ul>
   *   <li>ACTIVE: RETRYING → DISPATCHED, at the ticker's current epoch, so a new ticker leader does
   *       not mistake the rows for its predecessor's dispatches;
   *   <li>PAUSED: RETRYING → PAUSED (a RESUME fires it again, as any paused instance);
   *   <li>CANCELLED, DELETED, or no task row: RETRYING → CANCELLED. Left RETRYING they would never
   *       run nor be deleted.
   * </ul>
   *
   * Each move is audited; a row no longer RETRYING (or not yet due) is a lost race, left alone.
   *
   * @return the instances to emit on {@code ax.task.due.retry}
   */
  List<DueInstance> dispatchRetries(Collection<Long> seqs, String actor, long nowMs) {
    if (seqs.isEmpty()) {
      return List.of();
    }
    return jdbc.inPacketTransaction(
        "dispatching " + seqs.size() + " retr(ies)",
        tx -> {
          JdbcTransaction statements = tx.statements();
          // A plain read: an instance's task never changes, and no instance row is locked yet.
          Map<Long, String> taskBySeq = new HashMap<>();
          statements
              .queryIn(
                  seqs,
                  RetryStore::retryingBySeqSql,
                  List.of(RETRYING.name()),
                  rs -> Map.entry(rs.getLong(1), rs.getString(2)))
              .forEach(row -> taskBySeq.put(row.getKey(), row.getValue()));
          Map<String, TaskGate.Held> tasks =
              TaskGate.holdAll(statements, new HashSet<>(taskBySeq.values()));
          List<Long> active = new ArrayList<>();
          List<Long> paused = new ArrayList<>();
          List<Long> stopped = new ArrayList<>();
          taskBySeq.forEach(
              (seq, taskId) -> {
                TaskGate.Held task = tasks.get(taskId);
                if (task != null && task.isActive()) {
                  active.add(seq);
                } else if (task != null && task.isPaused()) {
                  paused.add(seq);
                } else {
                  stopped.add(seq);
                }
              });
          // The last move's packet carries the commit: usually the dispatch, the only one.
          boolean settles = !paused.isEmpty() || !stopped.isEmpty();
          List<DueInstance> moved =
              active.isEmpty()
                  ? List.of()
                  : tx.move("seq", active, dispatch(actor, nowMs), nowMs, !settles);
          if (!paused.isEmpty()) {
            tx.move(
                "seq",
                paused,
                settle(PAUSED, TaskState.PAUSED.name(), actor, nowMs),
                nowMs,
                stopped.isEmpty());
          }
          if (!stopped.isEmpty()) {
            tx.move(
                "seq",
                stopped,
                settle(CANCELLED, "CANCELLED, DELETED or gone", actor, nowMs),
                nowMs,
                true);
          }
          return moved;
        });
  }

  private static BatchMove<DueInstance> dispatch(String actor, long nowMs) {
    return BatchMove.from(RETRYING)
        .<DueInstance>to(DISPATCHED)
        .set(
            "dispatched_at_ms = ?, next_attempt_at_ms = NULL, epoch = COALESCE((SELECT"
                + " l.epoch FROM ax_leader_lease l WHERE l.lease_name = 'ticker'), 0)",
            nowMs)
        .where("next_attempt_at_ms <= ?", nowMs)
        .readBack(DueInstance.COLUMNS, DueInstance::read)
        .audit(actor, "backoff over: next attempt dispatched");
  }

  /** A retry whose backoff is over but whose task was stopped while it waited: not dispatched. */
  private static BatchMove<Long> settle(
      InstanceStatus to, String taskState, String actor, long nowMs) {
    return BatchMove.from(RETRYING)
        .<Long>to(to)
        .set("next_attempt_at_ms = NULL, owner = NULL")
        .where("next_attempt_at_ms <= ?", nowMs)
        .readBack("seq", rs -> rs.getLong(1))
        .audit(actor, "backoff over, but the task is " + taskState + ": retry not dispatched");
  }

  /**
   * Retried attempts in flight: DISPATCHED after a first attempt, or RUNNING beyond the first
   * (which includes runs the reaper took back). The retry stage's concurrency bound counts these.
   */
  long countRetriesInFlight() {
    return jdbc.queryLong(
        "counting retries in flight",
        RETRIES_IN_FLIGHT,
        Jdbc.Binder.values(DISPATCHED.name(), RUNNING.name()));
  }
}
