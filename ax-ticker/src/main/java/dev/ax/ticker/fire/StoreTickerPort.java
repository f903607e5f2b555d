package dev.ax.ticker.fire;

import dev.ax.common.store.DueInstance;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.StoreException;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskSpecCache;
import dev.ax.ticker.fire.FiringStore.FireResult;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real {@link TickerPort}: the ticker's {@link FiringStore}, the task specs read through a
 * cache by (task id, version) so the hot path reads each spec once, and the due-event emitter.
 * Thread-safe (each part is).
 */
public record StoreTickerPort(
    FiringStore firings, DueEmitter emitter, TaskSpecCache specs, NotRunSender notRun)
    implements TickerPort {

  private static final Logger log = LoggerFactory.getLogger(StoreTickerPort.class);

  /**
   * Reads the specs of tasks never read before into the cache, so that firing their instances reads
   * none: called as instances are announced or loaded, off the firing thread. Best effort: a read
   * that fails (the database is away) is logged at debug and costs only that; {@link #tasksOf}
   * reads what is missing at firing time.
   */
  public void prefetch(Collection<String> taskIds) {
    if (taskIds.isEmpty()) {
      return;
    }
    try {
      specs.read(specs.unseen(taskIds));
    } catch (StoreException e) {
      log.debug(
          "Could not prefetch {} task spec(s); firing reads them: {}",
          taskIds.size(),
          e.toString());
    }
  }

  @Override
  public List<DueInstance> scheduledBySeq(Collection<Long> seqs) {
    return firings.findScheduledBySeq(seqs);
  }

  @Override
  public Map<String, StoredTask> tasksOf(Collection<DueInstance> rows) {
    return specs.of(rows, DueInstance::taskId, DueInstance::taskVersion);
  }

  @Override
  public Set<String> inFlight(Collection<String> taskIds) {
    return firings.tasksInFlight(taskIds);
  }

  @Override
  public Map<String, TaskOverlap> overlapOf(Collection<String> taskIds, long nowMs) {
    return firings.overlapOf(taskIds, nowMs);
  }

  @Override
  public FireResult fire(FirePlan plan, LeaseFence fence, long nowMs) {
    return fire(plan, Map.of(), fence, nowMs);
  }

  @Override
  public FireResult fire(
      FirePlan plan, Map<String, StoredTask> tasks, LeaseFence fence, long nowMs) {
    FireResult result = firings.fire(plan, fence, nowMs, notRun.eventsFor(tasks));
    notRun.send(result.outboxToken(), result.owed());
    return result;
  }

  /** One-shot tasks fire once: their specs leave the cache (see {@link TaskSpecCache}). */
  @Override
  public void firedWith(Collection<StoredTask> tasks) {
    specs.forgetOneShot(tasks);
  }

  @Override
  public void emitDue(
      List<DueInstance> dispatched, long epoch, long nowMs, Map<String, String> groupByTask) {
    emitter.emit(dispatched, epoch, nowMs, groupByTask);
  }
}
