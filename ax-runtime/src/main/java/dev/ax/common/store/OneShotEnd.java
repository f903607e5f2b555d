package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.function.IntFunction;

/**
 * The end of a one-shot task: a ONCE task in state ACTIVE whose last live instance has just become
 * terminal (SUCCESS, DEAD, CANCELLED, SKIPPED: {@link InstanceStatus#isTerminal}) moves to {@code
 * ENDED}, in the same transaction as that move. An ENDED task holds no live instance and fires
 * nothing more; it no longer counts against its group's limit, and retention may remove it.
 *
 * <p>Who calls it: every batch move to a terminal status ({@link BatchMover} appends {@link
 * #afterMoveSql} to the move's packet, so the end costs no round trip), the follow-ups that make a
 * failed attempt DEAD ({@link FailureFollowUps}) and the outcomes recorded one by one ({@link
 * #endAfter}), and, under the task's own lock, a RESUME or UPDATE that leaves a ONCE task without a
 * live instance ({@link #endIfDone}). The statement itself checks the task's type and state and
 * that no live instance is left, so a task that still has a live instance, or is PAUSED (a pause
 * stays visible until RESUME), is left as it is.
 *
 * <p>Which tasks it reaches: after a move, only the tasks of moved instances flagged {@code
 * one_shot} ({@link NewInstance#oneShot}: set at creation from the task's trigger, set again on the
 * live instances by an UPDATE that changes the trigger, and by a replay). The flag is read from the
 * instance rows the caller has just moved, so it costs no round trip and no read of {@code
 * ax_task}.
 *
 * <p>The way back: a dead-letter replay, a RUN_NOW or an UPDATE that gives an ENDED task a new live
 * instance makes it ACTIVE again ({@link #reactivate}) in the transaction of that instance, under
 * the task's lock ({@link TaskGate}).
 *
 * <p>Locks (the pools run READ COMMITTED, {@link Database}): after a move, the statement reads the
 * moved instance rows (already locked exclusively by the caller's move) for their task ids, keeping
 * only the one-shot ones, then reaches each of those ONCE tasks' {@code ax_task} row by primary key
 * and locks it exclusively, then reads the task's live instances by {@code ax_instance_task}. The
 * row of a task that is not ONCE is never read, so never locked nor waited for: a terminal move of
 * a CRON, FIXED_RATE, FIXED_DELAY or DEPENDENCY task's instances takes instance locks only, the
 * last locks of every path's order (task row first, then its instances: a lifecycle command
 * exclusively, {@link TaskGate} shared), so it closes no cycle with any of them and cannot deadlock
 * through this statement. A ONCE task's end still takes the task's row after the instance rows, the
 * reverse of those paths' order. A lifecycle command reads the pending instances it locks by {@code
 * (task_id, status)}, which keeps it off the RUNNING row a success is ending in most interleavings,
 * but not all: a CANCEL or DELETE that interrupts the ONCE task's running attempt locks that row
 * after the task's, and a PAUSE's index range scan can meet the success's index entries of the same
 * task (seen in CI). So a lifecycle command on a ONCE task racing the end of its run can deadlock
 * with it: the database breaks the cycle and the loser's caller tries its transaction again, as for
 * any lost transaction (PauseDuringSuccessIT).
 *
 * <p>Stateless; each call works in the caller's transaction, on the caller's thread.
 */
public final class OneShotEnd {

  /** The task state of a ONCE task whose every instance is terminal. */
  public static final String ENDED = TaskState.ENDED.name();

  /** The moves this class writes, checked against the table once. */
  static {
    TaskState.require(TaskState.ACTIVE, TaskState.ENDED);
    TaskState.require(TaskState.ENDED, TaskState.ACTIVE);
  }

  /** The instance statuses that keep a task live, as an SQL list of literals. */
  public static final String LIVE_STATUSES = liveStatuses();

  /**
   * The anti-join that finds a task's live instances by the task's own index ({@code
   * ax_instance_task}), and the conditions that end the task when it finds none. A join, not {@code
   * NOT EXISTS}: MariaDB rewrites such a subquery into a materialized scan of every live instance
   * when it thinks that cheaper, and the plan must not depend on table statistics.
   */
  private static final String LIVE_JOIN =
      " LEFT JOIN ax_instance l FORCE INDEX (ax_instance_task) ON l.task_id = t.task_id"
          + " AND l.status IN ("
          + LIVE_STATUSES
          + ") SET t.state = '"
          + ENDED
          + "', t.updated_at_ms = ? WHERE t.trigger_type = 'ONCE' AND t.state = "
          + Sql.literals(TaskState.ACTIVE)
          + " AND l.task_id IS NULL";

  private OneShotEnd() {}

  /**
   * Ends those of {@code taskIds} that are ACTIVE ONCE tasks without a live instance, in the
   * caller's open transaction on {@code connection}, one UPDATE per chunk of {@link
   * Sql#MAX_IN_LIST} ids (ascending, as every multi-task lock is taken). For a caller that holds
   * these tasks' rows locked already (a lifecycle command): it reads each named task's row,
   * whatever its trigger; a path that has just ended instances uses {@link #endAfter}.
   *
   * @return how many tasks ended
   */
  public static int endIfDone(Connection connection, Collection<String> taskIds, long nowMs)
      throws SQLException {
    return updateByChunk(
        connection,
        taskIds,
        size ->
            "UPDATE ax_task t" + LIVE_JOIN + " AND t.task_id IN (" + Sql.placeholders(size) + ")",
        (update, chunk) -> {
          update.setLong(1, nowMs);
          BatchMover.bindKeys(update, 2, chunk);
        });
  }

  /**
   * Ends the one-shot tasks of {@code instanceIds}, instances the caller has just moved to a
   * terminal status in its open transaction on {@code connection}: those of their tasks that are
   * ACTIVE ONCE tasks left without a live instance. Reaches only the tasks of instances flagged
   * one-shot (see the class comment), one UPDATE per chunk of {@link Sql#MAX_IN_LIST} ids.
   *
   * @return how many tasks ended
   */
  public static int endAfter(Connection connection, Collection<String> instanceIds, long nowMs)
      throws SQLException {
    return updateByChunk(
        connection,
        instanceIds,
        size -> oneShotTasksOf("instance_id", "(" + Sql.placeholders(size) + ")", ""),
        (update, chunk) -> update.setLong(BatchMover.bindKeys(update, 1, chunk), nowMs));
  }

  /**
   * Runs the UPDATE {@code sqlOf} gives for a chunk's size once per chunk of {@link
   * Sql#MAX_IN_LIST} of {@code keys}, ascending (as every multi-task lock is taken), bound by
   * {@code binder}, on {@code connection}.
   *
   * @return the rows the UPDATEs changed
   */
  private static int updateByChunk(
      Connection connection, Collection<String> keys, IntFunction<String> sqlOf, ChunkBinder binder)
      throws SQLException {
    int updated = 0;
    for (List<String> chunk : Sql.chunks(new TreeSet<>(keys))) {
      try (PreparedStatement update = connection.prepareStatement(sqlOf.apply(chunk.size()))) {
        binder.bind(update, chunk);
        updated += update.executeUpdate();
      }
    }
    return updated;
  }

  /** Binds one chunk's statement: the chunk's keys and now, where its SQL has them. */
  @FunctionalInterface
  private interface ChunkBinder {
    void bind(PreparedStatement update, List<String> chunk) throws SQLException;
  }

  /**
   * The statement a batch move to a terminal status appends to its packet, after its read-back:
   * ends the one-shot tasks of the rows the move stamped with its token ({@code keyColumn IN in AND
   * batch_token = ?}). Parameters: the keys, the token, then now.
   */
  static String afterMoveSql(String keyColumn, String in) {
    return ";" + oneShotTasksOf(keyColumn, in, " AND batch_token = ?");
  }

  /**
   * The end of the tasks of the one-shot instances {@code keyColumn IN in} (and {@code stamped}).
   * The DISTINCT derived table is materialized first (DISTINCT keeps MySQL and MariaDB from merging
   * it into the outer query) from the moved rows alone, and the task rows are then reached from it
   * by primary key, so only the rows of the tasks it lists are read and locked. A join rather than
   * {@code task_id IN (SELECT ...)}: a single-table UPDATE with an IN subquery is read as a
   * dependent subquery per task row by MySQL before 8.0.21, a scan (and lock) of the whole task
   * table. Parameters: the keys, those of {@code stamped}, then now.
   */
  private static String oneShotTasksOf(String keyColumn, String in, String stamped) {
    return "UPDATE ax_task t JOIN (SELECT DISTINCT task_id FROM ax_instance WHERE "
        + keyColumn
        + " IN "
        + in
        + stamped
        + " AND one_shot = 1) m ON m.task_id = t.task_id"
        + LIVE_JOIN;
  }

  /**
   * ENDED → ACTIVE for {@code taskId}, in the caller's transaction, which has just given the task a
   * new live instance (or is about to) under the task's lock.
   *
   * @return true if the task was ENDED
   */
  public static boolean reactivate(JdbcTransaction tx, String taskId, long nowMs)
      throws SQLException {
    return tx.update(
            "UPDATE ax_task SET state = "
                + Sql.literals(TaskState.ACTIVE)
                + ", updated_at_ms = ? WHERE task_id = ?"
                + " AND state = '"
                + ENDED
                + "'",
            Jdbc.Binder.values(nowMs, taskId))
        == 1;
  }

  private static String liveStatuses() {
    List<String> live = new ArrayList<>();
    for (InstanceStatus status : InstanceStatus.values()) {
      if (!status.isTerminal()) {
        live.add("'" + status.name() + "'");
      }
    }
    return String.join(", ", live);
  }
}
