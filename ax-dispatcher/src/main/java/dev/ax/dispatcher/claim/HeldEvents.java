package dev.ax.dispatcher.claim;

import dev.ax.common.contract.TaskDueEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Due events waiting for room in their group's pool, oldest due first per group. Bounded by the
 * dispatcher's back-pressure: it stops fetching while a poll's worth is held, after shedding the
 * backlog of groups whose pools are stalled ({@link HoldBudget}).
 *
 * <p>Not thread-safe: confined to the {@link ClaimLoop}'s thread.
 */
final class HeldEvents {

  private final Map<String, PriorityQueue<TaskDueEvent>> byGroup = new HashMap<>();
  private int size;

  void add(String group, TaskDueEvent event) {
    byGroup
        .computeIfAbsent(
            group, g -> new PriorityQueue<>(Comparator.comparingLong(TaskDueEvent::dueAtMs)))
        .add(event);
    size++;
  }

  Set<String> groups() {
    return Set.copyOf(byGroup.keySet());
  }

  /** Removes and returns up to {@code max} events of {@code group}, oldest due first. */
  List<TaskDueEvent> take(String group, int max) {
    PriorityQueue<TaskDueEvent> queue = byGroup.get(group);
    List<TaskDueEvent> taken = new ArrayList<>();
    while (queue != null && taken.size() < max && !queue.isEmpty()) {
      taken.add(queue.poll());
      size--;
    }
    if (queue != null && queue.isEmpty()) {
      byGroup.remove(group);
    }
    return taken;
  }

  /** The events of {@code group} held now. */
  int size(String group) {
    PriorityQueue<TaskDueEvent> queue = byGroup.get(group);
    return queue == null ? 0 : queue.size();
  }

  /**
   * Keeps the {@code keep} oldest due events of {@code group} and removes and returns the rest,
   * latest due last.
   */
  List<TaskDueEvent> keepOldest(String group, int keep) {
    PriorityQueue<TaskDueEvent> queue = byGroup.get(group);
    if (queue == null || queue.size() <= keep) {
      return List.of();
    }
    List<TaskDueEvent> all = new ArrayList<>(queue.size());
    while (!queue.isEmpty()) {
      all.add(queue.poll());
    }
    queue.addAll(all.subList(0, keep));
    List<TaskDueEvent> shed = new ArrayList<>(all.subList(keep, all.size()));
    size -= shed.size();
    if (queue.isEmpty()) {
      byGroup.remove(group);
    }
    return shed;
  }

  /** Removes and returns every held event, by group. */
  Map<String, List<TaskDueEvent>> takeAll() {
    Map<String, List<TaskDueEvent>> all = new HashMap<>();
    byGroup.forEach((group, queue) -> all.put(group, new ArrayList<>(queue)));
    byGroup.clear();
    size = 0;
    return all;
  }

  int size() {
    return size;
  }
}
