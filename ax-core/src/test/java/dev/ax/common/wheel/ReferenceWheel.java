package dev.ax.common.wheel;

import dev.ax.common.wheel.Batches.Batch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The obvious model of the wheel's contract: a TreeMap by (due time, group). Slow, clearly right.
 */
final class ReferenceWheel {

  private record Pending(int groupId, long dueAtMs) {}

  private final int maxPending;
  private final Map<Long, Pending> pending = new HashMap<>();
  private final TreeMap<Long, TreeMap<Integer, List<Long>>> byDue = new TreeMap<>();
  private long currentTimeMs;

  ReferenceWheel(int maxPending, long startMs) {
    this.maxPending = maxPending;
    this.currentTimeMs = startMs;
  }

  AddResult add(long instanceId, int groupId, long dueAtMs) {
    if (pending.containsKey(instanceId)) {
      return AddResult.DUPLICATE;
    }
    if (dueAtMs <= currentTimeMs) {
      return AddResult.ALREADY_DUE;
    }
    if (pending.size() >= maxPending) {
      return AddResult.FULL;
    }
    pending.put(instanceId, new Pending(groupId, dueAtMs));
    byDue
        .computeIfAbsent(dueAtMs, due -> new TreeMap<>())
        .computeIfAbsent(groupId, group -> new ArrayList<>())
        .add(instanceId);
    return AddResult.ADDED;
  }

  boolean remove(long instanceId) {
    Pending removed = pending.remove(instanceId);
    if (removed == null) {
      return false;
    }
    TreeMap<Integer, List<Long>> groups = byDue.get(removed.dueAtMs());
    List<Long> ids = groups.get(removed.groupId());
    ids.remove(instanceId);
    if (ids.isEmpty()) {
      groups.remove(removed.groupId());
      if (groups.isEmpty()) {
        byDue.remove(removed.dueAtMs());
      }
    }
    return true;
  }

  /** Hands out whole batches until at least {@code maxInstances}; whether due ones remain. */
  boolean advanceTo(long nowMs, int maxInstances, List<Batch> out) {
    currentTimeMs = Math.max(currentTimeMs, nowMs);
    long handedOut = 0;
    while (handedOut < maxInstances && hasDue()) {
      Map.Entry<Long, TreeMap<Integer, List<Long>>> first = byDue.firstEntry();
      Map.Entry<Integer, List<Long>> group = first.getValue().pollFirstEntry();
      if (first.getValue().isEmpty()) {
        byDue.remove(first.getKey());
      }
      List<Long> ids = group.getValue();
      ids.forEach(pending::remove);
      out.add(Batch.of(group.getKey(), first.getKey(), ids.stream().mapToLong(i -> i).toArray()));
      handedOut += ids.size();
    }
    return hasDue();
  }

  long minDueMs() {
    return byDue.isEmpty() ? Long.MAX_VALUE : byDue.firstKey();
  }

  boolean contains(long instanceId) {
    return pending.containsKey(instanceId);
  }

  int size() {
    return pending.size();
  }

  long currentTimeMs() {
    return currentTimeMs;
  }

  List<Long> clear() {
    List<Long> ids = new ArrayList<>(pending.keySet());
    pending.clear();
    byDue.clear();
    return ids;
  }

  private boolean hasDue() {
    return !byDue.isEmpty() && byDue.firstKey() <= currentTimeMs;
  }
}
