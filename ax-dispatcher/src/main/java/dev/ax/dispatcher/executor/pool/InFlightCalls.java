package dev.ax.dispatcher.executor.pool;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * This dispatcher's calls in flight per pool endpoint (key: pool and base URL), for LEAST_BUSY.
 * Every {@link #start} is paired with one {@link #end} in a finally. Entries stay once made: their
 * number is bounded by the pools' endpoints ever seen by this process. Thread-safe (a concurrent
 * map of atomic counters).
 */
final class InFlightCalls {

  private final ConcurrentHashMap<String, AtomicInteger> calls = new ConcurrentHashMap<>();

  void start(String pool, String url) {
    calls.computeIfAbsent(key(pool, url), k -> new AtomicInteger()).incrementAndGet();
  }

  void end(String pool, String url) {
    AtomicInteger count = calls.get(key(pool, url));
    if (count != null) {
      count.decrementAndGet();
    }
  }

  int count(String pool, String url) {
    AtomicInteger count = calls.get(key(pool, url));
    return count == null ? 0 : count.get();
  }

  private static String key(String pool, String url) {
    return pool + ' ' + url;
  }
}
