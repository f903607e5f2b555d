package dev.ax.dispatcher.claim;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The gauge {@code ax.dispatcher.held.events{pool}}: how many due events this dispatcher holds
 * unclaimed per pool, as of the claim loop's last publish. A pool's gauge is registered when the
 * first event for the pool arrives and reads 0 once the pool holds nothing; pools are bounded
 * ({@code Bulkheads}: the configured ones, {@code maxGroups} and two shared), so the series are
 * too.
 *
 * <p>Threading: {@link #publish} from the claim loop's thread only (it alone reads {@link
 * HeldEvents}); the gauges are read from any thread.
 */
final class HeldEventsMeter {

  /** How often the per-pool counts are published: a scrape needs no fresher value. */
  static final long PUBLISH_INTERVAL_MS = 1_000;

  private final MeterRegistry meters;
  private final Map<String, AtomicInteger> byPool = new ConcurrentHashMap<>();
  private long lastPublishMs = Long.MIN_VALUE;

  HeldEventsMeter(MeterRegistry meters) {
    this.meters = meters;
  }

  /** Registers {@code pool}'s gauge if it has none yet: called for each event the loop takes in. */
  void seen(String pool) {
    if (!byPool.containsKey(pool)) {
      byPool.computeIfAbsent(pool, this::register);
    }
  }

  /** Publishes {@code held}'s count per pool, at most once a {@link #PUBLISH_INTERVAL_MS}. */
  void publish(HeldEvents held, long nowMs) {
    if (lastPublishMs != Long.MIN_VALUE && nowMs - lastPublishMs < PUBLISH_INTERVAL_MS) {
      return;
    }
    lastPublishMs = nowMs;
    byPool.forEach((pool, count) -> count.set(held.size(pool)));
    for (String pool : held.groups()) {
      byPool.computeIfAbsent(pool, this::register).set(held.size(pool));
    }
  }

  private AtomicInteger register(String pool) {
    AtomicInteger count = new AtomicInteger();
    Gauge.builder("ax.dispatcher.held.events", count, AtomicInteger::get)
        .description("due events this dispatcher holds unclaimed, waiting for room in the pool")
        .tag("pool", pool)
        .register(meters);
    return count;
  }
}
