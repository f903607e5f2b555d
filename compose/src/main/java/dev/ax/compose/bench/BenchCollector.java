package dev.ax.compose.bench;

import dev.ax.common.contract.TaskCompletedEvent;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Collects the completion events of one bench run: the first event per instance, and how many
 * events each instance had (more than one is a duplicate run). Events of other runs are counted and
 * ignored. Not thread-safe: fed and read by the bench's main thread.
 */
public final class BenchCollector {

  private final BenchPlan plan;
  private final Map<String, TaskCompletedEvent> firstByInstance = new HashMap<>();
  private final Map<String, Integer> eventsByInstance = new HashMap<>();
  private long foreignEvents;

  public BenchCollector(BenchPlan plan) {
    this.plan = plan;
  }

  public void accept(TaskCompletedEvent event) {
    if (!event.instanceId().startsWith(plan.instanceIdPrefix())) {
      foreignEvents++;
      return;
    }
    firstByInstance.putIfAbsent(event.instanceId(), event);
    eventsByInstance.merge(event.instanceId(), 1, Integer::sum);
  }

  /** Instances of this run with at least one completion event. */
  public int completed() {
    return firstByInstance.size();
  }

  public boolean allCompleted() {
    return completed() >= plan.tasks();
  }

  /** Completion events beyond the first, summed over instances. */
  public long duplicateEvents() {
    return eventsByInstance.values().stream().mapToLong(n -> n - 1).sum();
  }

  public Collection<TaskCompletedEvent> firstEvents() {
    return firstByInstance.values();
  }

  /** Events on the topic that belong to no instance of this run (there should be none). */
  public long foreignEvents() {
    return foreignEvents;
  }
}
