package dev.ax.retry;

import static dev.ax.common.model.InstanceStatus.CANCELLED;
import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.PAUSED;
import static dev.ax.common.model.InstanceStatus.RETRYING;
import static dev.ax.common.model.InstanceStatus.RUNNING;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.Sql;
import java.util.Collection;
import java.util.List;
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

  private final Jdbc jdbc;

  RetryStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /** RETRYING instances whose next attempt is due before {@code beforeMs}, soonest first. */
  List<PendingRetry> findPendingRetries(long beforeMs, int limit) {
    return jdbc.query(
        "reading pending retries",
        "SELECT seq, task_id, next_attempt_at_ms FROM ax_instance"
            + " WHERE status = ? AND next_attempt_at_ms < ? ORDER BY next_attempt_at_ms LIMIT ?",
        Jdbc.Binder.values(RETRYING.name(), beforeMs, limit),
        rs -> new PendingRetry(rs.getLong(1), rs.getString(2), rs.getLong(3)));
  }

  /**
   * RETRYING → DISPATCHED for the instances (by seq) whose next attempt is due at {@code nowMs}.
   * The rows take the ticker's current epoch, so a new ticker leader does not mistake them for its
   * predecessor's dispatches.
   *
   * @return the instances to emit on {@code ax.task.due.retry}
   */
  List<DueInstance> dispatchRetries(Collection<Long> seqs, String actor, long nowMs) {
    List<DueInstance> moved =
        jdbc.move(
            "seq",
            seqs,
            BatchMove.from(RETRYING)
                .<DueInstance>to(DISPATCHED)
                .set(
                    "dispatched_at_ms = ?, next_attempt_at_ms = NULL, epoch = COALESCE((SELECT"
                        + " l.epoch FROM ax_leader_lease l WHERE l.lease_name = 'ticker'), 0)",
                    nowMs)
                .where("next_attempt_at_ms <= ?", nowMs)
                .where(TASK_STATE + " = ?", "ACTIVE")
                .readBack(DueInstance.COLUMNS, DueInstance::read)
                .audit(actor, "backoff over: next attempt dispatched"),
            nowMs);
    if (moved.size() < seqs.size()) {
      settleStopped(seqs, actor, nowMs); // rare: only when some were left, for whatever reason
    }
    return moved;
  }

  /** The state of the instance's task. */
  private static final String TASK_STATE =
      "(SELECT t.state FROM ax_task t WHERE t.task_id = ax_instance.task_id)";

  /**
   * The retries among {@code seqs} whose backoff is over but whose task was stopped while they
   * waited: CANCELLED for a cancelled (or deleted) task, PAUSED for a paused one (a RESUME fires it
   * again, as any paused instance). Left RETRYING they would never run nor be deleted.
   */
  private void settleStopped(Collection<Long> seqs, String actor, long nowMs) {
    settle(seqs, CANCELLED, "CANCELLED or DELETED", List.of("CANCELLED", "DELETED"), actor, nowMs);
    settle(seqs, PAUSED, "PAUSED", List.of("PAUSED"), actor, nowMs);
  }

  private void settle(
      Collection<Long> seqs,
      InstanceStatus to,
      String why,
      List<String> taskStates,
      String actor,
      long nowMs) {
    jdbc.move(
        "seq",
        seqs,
        BatchMove.from(RETRYING)
            .<Long>to(to)
            .set("next_attempt_at_ms = NULL, owner = NULL")
            .where("next_attempt_at_ms <= ?", nowMs)
            .where(
                TASK_STATE + " IN (" + Sql.placeholders(taskStates.size()) + ")",
                taskStates.toArray())
            .readBack("seq", rs -> rs.getLong(1))
            .audit(actor, "backoff over, but the task is " + why + ": retry not dispatched"),
        nowMs);
  }

  /**
   * Retried attempts in flight: DISPATCHED after a first attempt, or RUNNING beyond the first
   * (which includes runs the reaper took back). The retry stage's concurrency bound counts these.
   */
  long countRetriesInFlight() {
    return jdbc.queryLong(
        "counting retries in flight",
        "SELECT (SELECT COUNT(*) FROM ax_instance FORCE INDEX (ax_instance_status_due)"
            + " WHERE status = ? AND attempt >= 1)"
            + " + (SELECT COUNT(*) FROM ax_instance FORCE INDEX (ax_instance_status_due)"
            + " WHERE status = ? AND attempt >= 2)",
        Jdbc.Binder.values(DISPATCHED.name(), RUNNING.name()));
  }
}
