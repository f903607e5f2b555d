package dev.ax.ticker.fire;

import dev.ax.common.store.DueInstance;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.StoredTask;
import dev.ax.ticker.fire.FiringStore.FireResult;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything the {@link TickLoop} needs from the database and the broker, behind one small
 * interface: the stage wires the real one ({@link StoreTickerPort}); unit tests use an in-memory
 * one. Implementations must be safe to call from the tick loop's thread.
 */
public interface TickerPort {

  /** The rows among {@code seqs} that are still SCHEDULED, oldest due first. */
  List<DueInstance> scheduledBySeq(Collection<Long> seqs);

  /** The tasks of these rows, by task id. */
  Map<String, StoredTask> tasksOf(Collection<DueInstance> rows);

  /**
   * Tasks among {@code taskIds} with a live attempt: an instance DISPATCHED, RUNNING or RETRYING.
   */
  Set<String> inFlight(Collection<String> taskIds);

  /**
   * What the tasks among {@code taskIds} have live for their overlap policies; tasks with nothing
   * live may be absent. By default only whether a run is in flight ({@link #inFlight}).
   */
  default Map<String, TaskOverlap> overlapOf(Collection<String> taskIds, long nowMs) {
    return TaskOverlap.ofInFlight(inFlight(taskIds));
  }

  /** Applies {@code plan} in one fenced transaction. */
  FireResult fire(FirePlan plan, LeaseFence fence, long nowMs);

  /**
   * Applies {@code plan} in one fenced transaction, with the completion events of the firings that
   * did not run (built with the batch's {@code tasks}), sent after the commit.
   */
  default FireResult fire(
      FirePlan plan, Map<String, StoredTask> tasks, LeaseFence fence, long nowMs) {
    return fire(plan, fence, nowMs);
  }

  /** Emits due events for instances just dispatched. */
  void emitDue(
      List<DueInstance> dispatched, long epoch, long nowMs, Map<String, String> groupByTask);

  /** The loop has fired (or skipped) instances of these tasks and needs their specs no more. */
  default void firedWith(Collection<StoredTask> tasks) {}
}
