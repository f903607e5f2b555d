package dev.ax.retry;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;

/**
 * Decides which ready retries go now: oldest ready first, at most {@code maxBatch} a step and as
 * many as the {@link RetryQuota} grants (its rate and its bound on retried attempts in flight). No
 * I/O and no clock of its own (time comes in as {@code nowMs}), so the rules are tested alone.
 *
 * <p>Owned by the retry loop's thread; not thread-safe (the quota's bucket is its state).
 */
final class RetryPlanner {

  private final RetryQuota quota;
  private final int maxBatch;

  RetryPlanner(RetryQuota quota, int maxBatch) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be positive: " + maxBatch);
    }
    this.quota = quota;
    this.maxBatch = maxBatch;
  }

  /**
   * The retries among {@code readyOldestFirst} to dispatch now; the permits granted are spent.
   *
   * @param inFlight retried attempts dispatched or running, as last counted
   */
  DispatchPlan plan(Collection<Long> readyOldestFirst, long inFlight, long nowMs) {
    int permits = quota.take(Math.min(readyOldestFirst.size(), maxBatch), inFlight, nowMs);
    List<Long> batch = new ArrayList<>(permits);
    Iterator<Long> it = readyOldestFirst.iterator();
    while (batch.size() < permits && it.hasNext()) {
      batch.add(it.next());
    }
    return new DispatchPlan(batch, readyOldestFirst.size() - permits);
  }
}
