package dev.ax.dispatcher.executor.pool;

import dev.ax.common.store.PoolStore;
import dev.ax.common.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor pools as this dispatcher knows them: every pool and endpoint, read from the database
 * at most once per {@link #REFRESH} (on the thread of the call that finds the copy stale) and
 * served from that copy in between. A failed read keeps the last copy, and is tried again at the
 * next refresh: a database outage does not stop pool runs that already had their endpoints.
 *
 * <p>Thread-safe: the copy is an immutable map behind a volatile field; one thread at a time
 * refreshes it (under this object's lock), the others read the copy they find.
 */
public final class PoolDirectory {

  private static final Logger log = LoggerFactory.getLogger(PoolDirectory.class);

  /** Longest a pool change takes to reach a dispatcher (plus the read itself). */
  public static final Duration REFRESH = Duration.ofSeconds(1);

  /** Reads every pool with its endpoints. */
  @FunctionalInterface
  public interface Source {
    List<PoolView> read();
  }

  private final Source source;
  private final Clock clock;
  private final long refreshMs;
  private volatile Map<String, PoolView> pools = Map.of();
  private volatile long readAtMs = Long.MIN_VALUE;

  public PoolDirectory(Source source, Clock clock, Duration refresh) {
    this.source = source;
    this.clock = clock;
    this.refreshMs = refresh.toMillis();
  }

  /** Over the database's {@code store}, refreshed every {@link #REFRESH}. */
  public static PoolDirectory of(PoolStore store, Clock clock) {
    return new PoolDirectory(() -> read(store), clock, REFRESH);
  }

  /** Pool {@code name} as last read, refreshed first when the copy is older than the refresh. */
  public Optional<PoolView> pool(String name) {
    refreshIfStale();
    return Optional.ofNullable(pools.get(name));
  }

  /** Every pool as last read (for the gauges), refreshed first when stale. */
  public Map<String, PoolView> pools() {
    refreshIfStale();
    return pools;
  }

  private void refreshIfStale() {
    long nowMs = clock.millis();
    if (fresh(nowMs)) {
      return;
    }
    synchronized (this) {
      if (fresh(nowMs)) {
        return; // another thread refreshed while this one waited
      }
      try {
        Map<String, PoolView> read = new HashMap<>();
        for (PoolView pool : source.read()) {
          read.put(pool.name(), pool);
        }
        pools = Map.copyOf(read);
      } catch (RuntimeException e) {
        log.warn("Cannot read the executor pools; keeping the last copy: {}", e.toString());
      }
      readAtMs = nowMs; // a failed read too: at most one try per refresh
    }
  }

  /** Whether the copy was read less than the refresh ago (never read: not fresh). */
  private boolean fresh(long nowMs) {
    long at = readAtMs;
    return at != Long.MIN_VALUE && nowMs - at < refreshMs;
  }

  private static List<PoolView> read(PoolStore store) {
    Map<String, List<PoolStore.Endpoint>> byPool = new HashMap<>();
    for (PoolStore.Endpoint endpoint : store.endpoints()) {
      byPool.computeIfAbsent(endpoint.pool(), p -> new ArrayList<>()).add(endpoint);
    }
    return store.pools().stream()
        .map(
            p ->
                new PoolView(
                    p.name(),
                    p.strategy(),
                    p.offlineAfterMs(),
                    byPool.getOrDefault(p.name(), List.of())))
        .toList();
  }
}
