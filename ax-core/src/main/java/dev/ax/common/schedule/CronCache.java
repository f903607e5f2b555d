package dev.ax.common.schedule;

import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parsed cron schedules by (expression, zone), least recently used dropped beyond {@code capacity}.
 * Parsing costs tens of microseconds and a ticker asks for the same few expressions over and over;
 * the cached {@link CronSchedule}s are thread-safe, so sharing them is safe.
 *
 * <p>Thread-safe: the map is guarded by {@code this}; parsing happens outside the lock, so two
 * threads may parse the same expression once each and the later one wins (harmless: equal values).
 */
final class CronCache {

  private record Key(String expression, ZoneId zone) {}

  private final int capacity;

  /** Guarded by {@code this}. Access-ordered: iteration starts at the least recently used. */
  private final LinkedHashMap<Key, CronSchedule> schedules;

  CronCache(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.capacity = capacity;
    this.schedules =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, CronSchedule> eldest) {
            return size() > CronCache.this.capacity;
          }
        };
  }

  /**
   * @throws IllegalArgumentException when the expression is not valid (see {@link
   *     CronSchedule#parse})
   */
  CronSchedule get(String expression, ZoneId zone) {
    Key key = new Key(expression, zone);
    synchronized (this) {
      CronSchedule cached = schedules.get(key);
      if (cached != null) {
        return cached;
      }
    }
    CronSchedule parsed = CronSchedule.parse(expression, zone);
    synchronized (this) {
      schedules.put(key, parsed);
    }
    return parsed;
  }

  synchronized int size() {
    return schedules.size();
  }
}
