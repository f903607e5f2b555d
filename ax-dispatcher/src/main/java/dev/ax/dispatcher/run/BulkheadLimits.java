package dev.ax.dispatcher.run;

import java.time.Duration;
import java.util.Map;

/**
 * How large the pools of {@link Bulkheads} are and how many there may be, from the dispatcher's
 * config. Immutable.
 *
 * @param threadsByGroup the pool sizes of the groups named in {@code AX_DISPATCHER_GROUP_THREADS}
 *     (they always have a pool of their own, outside {@code maxGroups})
 * @param defaultThreads the pool size of every other group
 * @param queuePerGroup the queue bound of every pool
 * @param maxGroups task groups with a pool of their own ({@code AX_DISPATCHER_MAX_GROUPS})
 * @param idleKeepAlive how long an idle worker thread lives
 */
public record BulkheadLimits(
    Map<String, Integer> threadsByGroup,
    int defaultThreads,
    int queuePerGroup,
    int maxGroups,
    Duration idleKeepAlive) {

  public BulkheadLimits {
    if (maxGroups < 1) {
      throw new IllegalArgumentException("maxGroups must be positive: " + maxGroups);
    }
    threadsByGroup = Map.copyOf(threadsByGroup);
  }

  /** The size of the pool named {@code pool}: its configured one, else the default. */
  int threadsOf(String pool) {
    return threadsByGroup.getOrDefault(pool, defaultThreads);
  }
}
