package dev.ax.dispatcher;

import dev.ax.common.contract.TaskDueEvent;
import java.util.HashMap;
import java.util.Map;

/**
 * A due event as the intake hands it to the {@link ClaimLoop}: with the name of the pool it waits
 * for ({@link dev.ax.dispatcher.run.Bulkheads#poolFor}, or the retry pool). Immutable.
 */
record PooledEvent(String pool, TaskDueEvent event) {

  /** The pool of each of {@code events}, by instance id. */
  static Map<String, String> poolsByInstance(Map<String, PooledEvent> events) {
    Map<String, String> pools = new HashMap<>();
    events.forEach((id, pooled) -> pools.put(id, pooled.pool()));
    return pools;
  }
}
