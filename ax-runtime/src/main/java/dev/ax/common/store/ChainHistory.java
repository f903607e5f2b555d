package dev.ax.common.store;

import static dev.ax.common.model.InstanceStatus.CANCELLED;
import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.PAUSED;
import static dev.ax.common.model.InstanceStatus.RETRYING;
import static dev.ax.common.model.InstanceStatus.RUNNING;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;
import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.TriggerType;
import dev.ax.common.schedule.NextFiring;
import java.sql.SQLException;
import java.util.List;

/**
 * Reads, in the caller's transaction, what a task's instances say about its chain of firings (a
 * {@link NextFiring.History}): the latest slot that fired, the latest run end, whether a run is in
 * flight. Used by UPDATE and by the reaper's chain repair, each under the task's row lock.
 *
 * <p>Reads the {@link #RECENT_ROWS} most recent instances that are not pending, by the task's
 * due-time index, and one row for the in-flight check: the cost does not grow with the task's
 * history. A slot instance CANCELLED without ever being dispatched is a superseded slot an earlier
 * AX kept: it never fired, so it does not count. Stateless.
 */
public final class ChainHistory {

  /** Most recent instances read to find the last slot that fired and the last run's end. */
  public static final int RECENT_ROWS = 64;

  private ChainHistory() {}

  /**
   * @param firedAs the task's trigger type before the change at hand (see {@link
   *     NextFiring.History#firedAs})
   */
  public static NextFiring.History read(
      JdbcTransaction statements, String taskId, long acceptedAtMs, TriggerType firedAs)
      throws SQLException {
    List<Object[]> recent =
        statements.query(
            "SELECT instance_id, finished_at_ms FROM ax_instance WHERE task_id = ?"
                + " AND status NOT IN (?, ?) AND NOT (status = ? AND dispatched_at_ms IS NULL)"
                + " ORDER BY due_at_ms DESC LIMIT ?",
            values(taskId, SCHEDULED.name(), PAUSED.name(), CANCELLED.name(), RECENT_ROWS),
            rs -> {
              long finished = rs.getLong(2);
              return new Object[] {rs.getString(1), rs.wasNull() ? null : finished};
            });
    Long lastFiredSlotMs = null;
    Long lastEndedAtMs = null;
    for (Object[] instance : recent) {
      String instanceId = (String) instance[0];
      if (InstanceIds.isSlotId(instanceId)) {
        long slotMs = InstanceIds.slotOf(instanceId);
        lastFiredSlotMs = lastFiredSlotMs == null ? slotMs : Math.max(lastFiredSlotMs, slotMs);
      }
      if (instance[1] != null) {
        long endedMs = (Long) instance[1];
        lastEndedAtMs = lastEndedAtMs == null ? endedMs : Math.max(lastEndedAtMs, endedMs);
      }
    }
    return new NextFiring.History(
        acceptedAtMs, lastFiredSlotMs, lastEndedAtMs, inFlight(statements, taskId), firedAs);
  }

  /** True when an instance of the task is DISPATCHED, RUNNING or RETRYING. */
  public static boolean inFlight(JdbcTransaction statements, String taskId) throws SQLException {
    return statements
        .queryFirst(
            "SELECT 1 FROM ax_instance WHERE task_id = ? AND status IN (?, ?, ?) LIMIT 1",
            values(taskId, DISPATCHED.name(), RUNNING.name(), RETRYING.name()),
            rs -> true)
        .isPresent();
  }
}
