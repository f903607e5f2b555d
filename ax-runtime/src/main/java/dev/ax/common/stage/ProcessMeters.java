package dev.ax.common.stage;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import dev.ax.common.time.DatabaseClock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.util.function.ToDoubleFunction;

/**
 * The meters of the process rather than of a stage: the JVM (memory, GC, threads, classes, CPU,
 * uptime; Micrometer's binders), the database pools ({@code ax.db.pool.*} by pool, from Hikari's
 * pool bean) and the database clock ({@code ax.clock.skew.ms}, {@code ax.clock.stable}). Bound once
 * per process by {@link StageRuntime}. Stateless.
 */
final class ProcessMeters {

  private ProcessMeters() {}

  /** Micrometer's JVM and system binders. The GC binder's listeners live as long as the JVM. */
  @SuppressWarnings("resource") // JvmGcMetrics listens for the life of the process
  static void bindJvm(MeterRegistry meters) {
    new JvmMemoryMetrics().bindTo(meters);
    new JvmGcMetrics().bindTo(meters);
    new JvmThreadMetrics().bindTo(meters);
    new ClassLoaderMetrics().bindTo(meters);
    new ProcessorMetrics().bindTo(meters);
    new UptimeMetrics().bindTo(meters);
  }

  /** Connections of one pool: active, idle, total, and threads waiting for one. */
  static void bindPool(MeterRegistry meters, HikariDataSource pool, String name) {
    poolGauge(
        meters, pool, name, "active", "connections in use", HikariPoolMXBean::getActiveConnections);
    poolGauge(
        meters,
        pool,
        name,
        "idle",
        "connections idle in the pool",
        HikariPoolMXBean::getIdleConnections);
    poolGauge(
        meters, pool, name, "open", "connections open", HikariPoolMXBean::getTotalConnections);
    poolGauge(
        meters,
        pool,
        name,
        "pending",
        "threads waiting for a connection",
        HikariPoolMXBean::getThreadsAwaitingConnection);
  }

  private static void poolGauge(
      MeterRegistry meters,
      HikariDataSource pool,
      String name,
      String what,
      String description,
      ToDoubleFunction<HikariPoolMXBean> value) {
    Gauge.builder(
            "ax.db.pool." + what,
            pool,
            p ->
                p.getHikariPoolMXBean() == null
                    ? Double.NaN
                    : value.applyAsDouble(p.getHikariPoolMXBean()))
        .description(description)
        .tag("pool", name)
        .register(meters);
  }

  /** How far this node's clock is from the database's, and whether it is stable. */
  static void bindClock(MeterRegistry meters, DatabaseClock clock) {
    Gauge.builder("ax.clock.held.ms", clock, DatabaseClock::heldMs)
        .description(
            "how far this node's clock runs ahead of the database's NOW() after a backward step"
                + " of the database clock it did not follow (0 normally)")
        .register(meters);
    Gauge.builder("ax.clock.skew.ms", clock, DatabaseClock::localSkewMs)
        .description("how far this node's clock is ahead of the database's (negative: behind)")
        .register(meters);
    Gauge.builder("ax.clock.stable", clock, c -> c.isStable() ? 1 : 0)
        .description("1 while the database clock is stable here, 0 while firing holds for it")
        .register(meters);
  }
}
