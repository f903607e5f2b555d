package dev.ax.ticker.backlog;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.StoreException;
import dev.ax.common.time.Clock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backlog as gauges, read from the store by the ticker leader alone (one reader, whatever the
 * number of replicas): {@code ax.backlog.instances{status}} for each active status, {@code
 * ax.backlog.oldest.due.age.ms} (how long the oldest instance due and not started has waited: the
 * signal of work stuck before execution) and {@code ax.backlog.outbox}. Counts stop at {@link
 * BacklogStore#COUNT_CAP} (100,000): a gauge at the cap means at least that many, and reading it
 * costs the same whatever the backlog. A standby, and a leader whose last read failed, report NaN
 * rather than a stale number.
 *
 * <p>Threading: {@link #refresh} from the ticker's chores thread; the gauges read volatile values
 * from the scrape thread.
 */
public final class Backlog {

  private static final Logger log = LoggerFactory.getLogger(Backlog.class);

  private final BacklogStore store;
  private final Clock clock;
  private final Supplier<Optional<LeaseFence>> leadership;
  private volatile Map<InstanceStatus, Double> counts = Map.of();
  private volatile double oldestAgeMs = Double.NaN;
  private volatile double outbox = Double.NaN;

  /**
   * @param store where the counts are read
   * @param leadership this node's lease fence when it leads: the backlog is read on the leader only
   */
  public Backlog(
      BacklogStore store,
      Clock clock,
      Supplier<Optional<LeaseFence>> leadership,
      MeterRegistry meters) {
    this.store = store;
    this.clock = clock;
    this.leadership = leadership;
    for (InstanceStatus status : BacklogStore.ACTIVE) {
      Gauge.builder("ax.backlog.instances", this, b -> b.counts.getOrDefault(status, Double.NaN))
          .description(
              "instances in this status, read from the store by the ticker leader; at most "
                  + BacklogStore.COUNT_CAP
                  + ", which means at least that many")
          .tag("status", status.name())
          .register(meters);
    }
    Gauge.builder("ax.backlog.oldest.due.age.ms", this, b -> b.oldestAgeMs)
        .description(
            "how long the oldest instance due and not started (SCHEDULED or DISPATCHED) has waited")
        .register(meters);
    Gauge.builder("ax.backlog.outbox", this, b -> b.outbox)
        .description(
            "events in the outbox not yet confirmed sent; at most "
                + BacklogStore.COUNT_CAP
                + ", which means at least that many")
        .register(meters);
  }

  /** One read of the backlog, on the leader; NaN everywhere else. */
  public void refresh() {
    if (leadership.get().isEmpty()) {
      clear();
      return;
    }
    try {
      long nowMs = clock.millis();
      Map<InstanceStatus, Double> read = new EnumMap<>(InstanceStatus.class);
      store.countByStatus().forEach((status, n) -> read.put(status, n.doubleValue()));
      OptionalLong oldest = store.oldestDueNotStartedMs(nowMs);
      double outboxRows = store.outboxRows();
      counts = read;
      oldestAgeMs = oldest.isPresent() ? Math.max(0, nowMs - oldest.getAsLong()) : 0;
      outbox = outboxRows;
    } catch (StoreException e) {
      clear();
      log.warn("Could not read the backlog, the next pass tries again: {}", e.getMessage());
    }
  }

  private void clear() {
    counts = Map.of();
    oldestAgeMs = Double.NaN;
    outbox = Double.NaN;
  }
}
