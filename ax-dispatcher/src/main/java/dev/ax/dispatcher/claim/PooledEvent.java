package dev.ax.dispatcher.claim;

import dev.ax.common.contract.TaskDueEvent;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A due event as the intake hands it to the {@link ClaimLoop}: with the name of the pool it waits
 * for ({@link dev.ax.dispatcher.run.Bulkheads#poolFor}, or the retry pool). Immutable.
 */
public record PooledEvent(String pool, TaskDueEvent event) {

  /** The pool of each of {@code events}, by instance id. */
  static Map<String, String> poolsByInstance(Map<String, PooledEvent> events) {
    Map<String, String> pools = new HashMap<>();
    events.forEach((id, pooled) -> pools.put(id, pooled.pool()));
    return pools;
  }

  /** The task ids of {@code events}, each once. */
  static Set<String> taskIds(Collection<PooledEvent> events) {
    Set<String> taskIds = new HashSet<>();
    events.forEach(pooled -> taskIds.add(pooled.event().taskId()));
    return taskIds;
  }

  /** The earliest due time among {@code events}; {@link Long#MAX_VALUE} for none. */
  static long oldestDueMs(Collection<PooledEvent> events) {
    return events.stream()
        .mapToLong(pooled -> pooled.event().dueAtMs())
        .min()
        .orElse(Long.MAX_VALUE);
  }
}
