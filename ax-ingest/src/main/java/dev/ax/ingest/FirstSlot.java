package dev.ax.ingest;

import static dev.ax.common.model.InstanceStatus.PAUSED;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;
import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.NextFiring;
import dev.ax.common.store.JdbcTransaction;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * An UPDATE's first slot of its new version, as it stands once the task's pending slots are locked.
 * The slot is computed from the chain's history, read before those locks; if the ticker fired that
 * very slot meanwhile (its firing transaction held the pending slots the UPDATE waits for), the
 * first slot is the one after it. Otherwise the UPDATE would remove the successor that firing
 * created as superseded and create nothing itself (the slot's id is taken): the chain would end.
 * Only the grid triggers (CRON, FIXED_RATE) have such a next slot; a FIXED_DELAY chain goes on from
 * the fired run's completion.
 *
 * <p>Stateless; thread-safe.
 */
final class FirstSlot {

  private FirstSlot() {}

  /** The slot after a given one under {@code trigger}, or null for a trigger with no grid. */
  static LongFunction<Optional<Long>> after(
      NextFiring firings, Trigger trigger, long nowMs, NextFiring.History history) {
    if (!(trigger instanceof Trigger.Cron || trigger instanceof Trigger.FixedRate)) {
      return null;
    }
    return afterMs ->
        firings.firstDueAtMs(
            trigger,
            nowMs,
            new NextFiring.History(
                history.acceptedAtMs(),
                afterMs,
                history.lastEndedAtMs(),
                history.inFlight(),
                history.firedAs()));
  }

  /**
   * {@code firstDueAtMs}, or the slot after it ({@code slotAfter}) when the ticker fired it while
   * this transaction waited for the task's pending slots. Call it once this transaction holds them
   * (the UPDATE's {@code SELECT ... FOR UPDATE} of the task's pending slots).
   */
  static Optional<Long> once(
      JdbcTransaction statements,
      String taskId,
      Optional<Long> firstDueAtMs,
      LongFunction<Optional<Long>> slotAfter)
      throws SQLException {
    if (firstDueAtMs.isEmpty() || slotAfter == null) {
      return firstDueAtMs;
    }
    boolean fired =
        statements
            .queryFirst(
                // A locking read: the row as committed now, not as this transaction first saw it.
                // Fired and no longer pending: a slot held PAUSED (or SCHEDULED again) is still
                // the pending slot the replan keeps.
                "SELECT 1 FROM ax_instance WHERE instance_id = ?"
                    + " AND dispatched_at_ms IS NOT NULL AND status NOT IN (?, ?) FOR UPDATE",
                values(InstanceIds.of(taskId, firstDueAtMs.get()), SCHEDULED.name(), PAUSED.name()),
                rs -> true)
            .isPresent();
    return fired ? slotAfter.apply(firstDueAtMs.get()) : firstDueAtMs;
  }
}
