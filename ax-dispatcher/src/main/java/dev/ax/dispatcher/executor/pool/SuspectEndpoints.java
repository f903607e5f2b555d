package dev.ax.dispatcher.executor.pool;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Endpoints this dispatcher could not connect to lately: each stays suspect for {@link
 * #suspectForMs} after its last failed connect, and is routed to last (still tried when nothing
 * else answers) until then, so that runs do not all wait on a dead endpoint's failed connect before
 * its heartbeats stop and it goes offline. Expired entries are dropped on each mark; entries are
 * bounded by the endpoints ever seen. Thread-safe (a concurrent map).
 */
final class SuspectEndpoints {

  private final long suspectForMs;
  private final ConcurrentHashMap<String, Long> untilMs = new ConcurrentHashMap<>();

  SuspectEndpoints(long suspectForMs) {
    this.suspectForMs = suspectForMs;
  }

  void mark(String pool, String url, long nowMs) {
    untilMs.values().removeIf(until -> until <= nowMs);
    untilMs.put(pool + ' ' + url, nowMs + suspectForMs);
  }

  boolean suspect(String pool, String url, long nowMs) {
    Long until = untilMs.get(pool + ' ' + url);
    return until != null && until > nowMs;
  }
}
