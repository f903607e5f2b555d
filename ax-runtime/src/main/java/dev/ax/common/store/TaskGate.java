package dev.ax.common.store;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.TaskState;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The gate every path that creates or starts a run passes (DESIGN invariant 11): the state and
 * version of the run's task, read under a shared lock on its {@code ax_task} row, in the
 * transaction of the path's own insert or move.
 *
 * <p>Why it closes the race with the lifecycle commands: CANCEL, DELETE, PAUSE, RESUME and UPDATE
 * lock the task's row exclusively ({@code SELECT ... FOR UPDATE}) before they touch its instances.
 * A shared lock taken here waits for such a command to commit and then reads the state it left (a
 * locking read sees the latest committed row, whatever the isolation level); a command that comes
 * later waits for this transaction, and then finds and moves what it created or moved. So a path
 * never acts on a state a command has already changed. Several paths may hold the shared lock at
 * once: they do not wait for each other.
 *
 * <p>Lock order: the task before any of its {@code ax_instance} rows, as the lifecycle commands
 * take them, so the gate and a lifecycle command cannot deadlock; several tasks in ascending id
 * order, as a group command takes them. One path takes the other order, for ONCE tasks only: {@link
 * OneShotEnd}'s statement, appended to every move to a terminal status, locks the task rows of the
 * moved one-shot instances after those instance rows (a periodic task's row it never reads). A
 * deadlock with a CANCEL or DELETE that interrupts the same ONCE task's running attempt is then
 * possible (see OneShotEnd); the database breaks it and the loser's caller tries its transaction
 * again, as for any lost transaction.
 *
 * <p>{@code LOCK IN SHARE MODE} rather than {@code FOR SHARE}: MySQL 8 and MariaDB both accept it.
 *
 * <p>Stateless; each call works in the caller's transaction, on the caller's thread.
 */
public final class TaskGate {

  /** A task as the gate found it, its row locked until the caller's transaction ends. */
  public record Held(String taskId, TaskState state, int version) {

    /** ACTIVE: runs may be created and started. */
    public boolean isActive() {
      return state == TaskState.ACTIVE;
    }

    /** PAUSED: runs wait PAUSED for a RESUME. */
    public boolean isPaused() {
      return state == TaskState.PAUSED;
    }

    /**
     * ENDED: a one-shot task whose runs are all over ({@link OneShotEnd}); a path that gives it a
     * new run (a dead-letter replay) makes it ACTIVE again with {@link OneShotEnd#reactivate}.
     */
    public boolean isEnded() {
      return state == TaskState.ENDED;
    }
  }

  private TaskGate() {}

  /**
   * The state and version of {@code taskId}, its row share-locked in {@code tx}.
   *
   * @return empty when the task has no row (removed by retention): no run of it may start
   */
  public static Optional<Held> hold(JdbcTransaction tx, String taskId) throws SQLException {
    return tx.queryFirst(
        "SELECT state, version FROM ax_task WHERE task_id = ? LOCK IN SHARE MODE",
        values(taskId),
        rs -> new Held(taskId, TaskState.valueOf(rs.getString(1)), rs.getInt(2)));
  }

  /**
   * {@link #hold} for several tasks, one statement per chunk of {@link Sql#MAX_IN_LIST} ids, the
   * chunks in ascending order. An IN list of primary keys is read as sorted ranges of the primary
   * key, so the rows are locked in ascending id order, as a group command locks them ({@code
   * utf8mb4_bin} orders by code point, as {@link String#compareTo} does for ids without
   * supplementary characters; a rare misordering only risks a deadlock, which the database breaks
   * and the caller's next try resolves).
   *
   * @return the tasks found, by id; a task without a row is missing
   */
  public static Map<String, Held> holdAll(JdbcTransaction tx, Collection<String> taskIds)
      throws SQLException {
    Map<String, Held> held = new HashMap<>();
    if (taskIds.isEmpty()) {
      return held;
    }
    tx.queryIn(
            new TreeSet<>(taskIds),
            in ->
                "SELECT task_id, state, version FROM ax_task WHERE task_id IN ("
                    + in
                    + ") ORDER BY task_id LOCK IN SHARE MODE",
            List.of(),
            rs -> new Held(rs.getString(1), TaskState.valueOf(rs.getString(2)), rs.getInt(3)))
        .forEach(task -> held.put(task.taskId(), task));
    return held;
  }
}
