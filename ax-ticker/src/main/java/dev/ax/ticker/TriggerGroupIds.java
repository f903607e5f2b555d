package dev.ax.ticker;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Interns trigger-group keys (e.g. {@code CRON|0/5 * * * * ?|UTC}) as the small ints the wheel
 * stores. Ids are stable for the life of the process. Thread-safe.
 */
final class TriggerGroupIds {

  private final ConcurrentHashMap<String, Integer> ids = new ConcurrentHashMap<>();
  private final AtomicInteger next = new AtomicInteger();

  int idOf(String triggerGroup) {
    return ids.computeIfAbsent(
        triggerGroup == null ? "" : triggerGroup, k -> next.getAndIncrement());
  }

  int size() {
    return ids.size();
  }
}
