package dev.ax.dispatcher.executor.pool;

import dev.ax.common.model.EndpointState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The pool meters of a dispatcher: {@code ax_pool_endpoints{pool,state}} (state online, offline or
 * draining, as this dispatcher's directory last read them) and {@code
 * ax_pool_failovers_total{pool}} (runs moved on to a next endpoint because one could not be
 * connected to). Cardinality is bounded by the pools ({@code PoolStore.MAX_POOLS}) times three. The
 * gauges' rows, and each pool's counter (at 0), are set on each scrape from the directory (which
 * refreshes itself when stale), so a pool created or removed shows or goes within a scrape or two.
 * A removed pool's counter stays until the process ends (bounded by the pools ever seen).
 *
 * <p>Thread-safe: Micrometer's meters are.
 */
final class PoolMeters {

  private static final List<String> STATES = List.of("online", "offline", "draining");

  private final MeterRegistry meters;
  private final PoolDirectory directory;
  private final LongSupplier clockMs;
  private final MultiGauge endpoints;

  PoolMeters(MeterRegistry meters, PoolDirectory directory, LongSupplier clockMs) {
    this.meters = meters;
    this.directory = directory;
    this.clockMs = clockMs;
    this.endpoints =
        MultiGauge.builder("ax.pool.endpoints")
            .description("Endpoints of each executor pool: online, offline or draining")
            .register(meters);
    Gauge.builder("ax.pool.count", this, PoolMeters::rowsNow)
        .description("Executor pools this dispatcher knows (reading it refreshes the rows)")
        .register(meters);
  }

  /** Without meters (tests). */
  static PoolMeters none(PoolDirectory directory) {
    return new PoolMeters(new SimpleMeterRegistry(), directory, () -> 0L);
  }

  void failover(String pool) {
    failovers(pool).increment();
  }

  /** The pool's failover counter, registered when the pool is first seen (so it reads 0). */
  private Counter failovers(String pool) {
    return Counter.builder("ax.pool.failovers")
        .description("Pool runs moved on to the next endpoint after a failed connect")
        .tag("pool", pool)
        .register(meters);
  }

  /** Sets the rows of {@code ax_pool_endpoints} from the directory; returns the pools' number. */
  private double rowsNow() {
    Map<String, PoolView> pools = directory.pools();
    long nowMs = clockMs.getAsLong();
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    for (PoolView pool : pools.values()) {
      failovers(pool.name());
      long[] counts = new long[STATES.size()];
      pool.endpoints()
          .forEach(
              e -> {
                int state =
                    e.state() == EndpointState.DRAINING
                        ? 2
                        : e.online(nowMs, pool.offlineAfterMs()) ? 0 : 1;
                counts[state]++;
              });
      for (int i = 0; i < STATES.size(); i++) {
        rows.add(
            MultiGauge.Row.of(Tags.of("pool", pool.name(), "state", STATES.get(i)), counts[i]));
      }
    }
    endpoints.register(rows, true);
    return pools.size();
  }
}
