package dev.ax.api.http;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How many requests each client address makes a second: a fixed one-second window per client,
 * admitting at most {@code perSecond}. At most {@link #MAX_CLIENTS} clients are remembered (the
 * least recent forgotten), so many addresses cannot grow the heap. Thread-safe.
 */
final class ClientRate {

  static final int MAX_CLIENTS = 10_000;

  private final int perSecond;
  private final LongSupplier nanoTime;
  private final Cache<String, Window> windows =
      Caffeine.newBuilder()
          .maximumSize(MAX_CLIENTS)
          .expireAfterAccess(Duration.ofSeconds(10))
          .build();

  ClientRate(int perSecond, LongSupplier nanoTime) {
    this.perSecond = perSecond;
    this.nanoTime = nanoTime;
  }

  /** Whether {@code client} may make one more request now; counts it when it may. */
  boolean admit(String client) {
    long second = nanoTime.getAsLong() / 1_000_000_000L;
    return windows.get(client, ignored -> new Window()).admit(second, perSecond);
  }

  /** One client's current second and its count in it. Guarded by itself. */
  private static final class Window {
    private long second = Long.MIN_VALUE;
    private int count;

    synchronized boolean admit(long now, int perSecond) {
      if (now != second) {
        second = now;
        count = 0;
      }
      if (count >= perSecond) {
        return false;
      }
      count++;
      return true;
    }
  }
}
