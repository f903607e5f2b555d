package dev.ax.ticker.reaper;

import dev.ax.common.model.TriggerType;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.schedule.NextFiring;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds ACTIVE periodic tasks (CRON, FIXED_RATE, FIXED_DELAY) with no live instance and restores
 * their chain: every such task must always have its next firing stored, and one without is a chain
 * some path ended (a lost completion event, a defect, rows removed by hand). Each restore is
 * counted ({@code ax.reaper.chains.repaired}) and logged at WARN with the task id.
 *
 * <p>Bounded per pass: it walks each trigger type's ACTIVE tasks by id, {@code maxPerPass} per type
 * and pass, and goes round again from the start after the last page; every task is looked at once
 * per round, whatever the number of tasks. A FIXED_DELAY task whose last run ended less than {@code
 * quiet} ago is left to the chainer, which creates its next firing from the completion event.
 *
 * <p>Threading: {@link #pass} is called from one thread (the ticker's scheduler); the cursors are
 * that thread's.
 */
public final class ChainRepair {

  private static final Logger log = LoggerFactory.getLogger(ChainRepair.class);

  private static final List<TriggerType> PERIODIC =
      List.of(TriggerType.CRON, TriggerType.FIXED_RATE, TriggerType.FIXED_DELAY);

  private final ChainRepairStore store;
  private final TaskStore tasks;
  private final NextFiring nextFiring = new NextFiring(new FireTimes());
  private final long quietMs;
  private final int maxPerPass;
  private final Counter repaired;
  private final Map<TriggerType, String> cursors = new EnumMap<>(TriggerType.class);

  /**
   * @param quiet how long after a FIXED_DELAY task's last run ended its chain is left to the
   *     chainer
   * @param maxPerPass most tasks of each trigger type one pass reads
   */
  public ChainRepair(
      ChainRepairStore store,
      TaskStore tasks,
      Duration quiet,
      int maxPerPass,
      MeterRegistry meters) {
    this.store = store;
    this.tasks = tasks;
    this.quietMs = quiet.toMillis();
    this.maxPerPass = maxPerPass;
    this.repaired = meters.counter("ax.reaper.chains.repaired");
  }

  /**
   * Looks at the next page of each periodic trigger type and restores the chains found broken.
   *
   * @return the chains restored
   */
  int pass(LeaseFence fence, long nowMs) {
    int restored = 0;
    for (TriggerType type : PERIODIC) {
      List<String> page = store.activePage(type, cursors.getOrDefault(type, ""), maxPerPass);
      cursors.put(type, page.size() < maxPerPass ? "" : page.get(page.size() - 1));
      if (page.isEmpty()) {
        continue;
      }
      Set<String> live = store.withLiveInstance(page);
      List<String> chainless = new ArrayList<>();
      for (String taskId : page) {
        if (!live.contains(taskId)) {
          chainless.add(taskId);
        }
      }
      if (!chainless.isEmpty()) {
        restored += restore(chainless, fence, nowMs);
      }
    }
    return restored;
  }

  private int restore(List<String> chainless, LeaseFence fence, long nowMs) {
    Map<String, StoredTask> specs = tasks.findAll(chainless);
    int restored = 0;
    for (String taskId : chainless) {
      StoredTask task = specs.get(taskId);
      if (task == null) {
        continue; // removed meanwhile
      }
      ChainRepairStore.Restore result =
          store.restore(taskId, task, nextFiring, fence, quietMs, nowMs);
      if (result instanceof ChainRepairStore.Restore.Restored done) {
        restored++;
        repaired.increment();
        log.warn(
            "Task {} ({}) was ACTIVE with no next firing: chain restored, next firing {} due at {}",
            taskId,
            task.spec().trigger().type(),
            done.instanceId(),
            Instant.ofEpochMilli(done.dueAtMs()));
      } else if (result instanceof ChainRepairStore.Restore.Blocked blocked) {
        log.warn(
            "Task {} is ACTIVE with no next firing, and its next firing's id {} is taken by an"
                + " instance that will not fire: chain not restored",
            taskId,
            blocked.instanceId());
      } else if (result instanceof ChainRepairStore.Restore.NotNeeded why) {
        log.debug("Task {}: no chain repair ({})", taskId, why.why());
      }
    }
    return restored;
  }
}
