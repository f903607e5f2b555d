package dev.ax.ticker.fire;

import dev.ax.common.metrics.LatencyHistogram;
import dev.ax.common.store.DueInstance;
import dev.ax.ticker.fire.FiringStore.FireResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The tick loop's meters of what its firings did: fired, skipped, their lateness, the marking
 * transaction's time, and the firings that did not run by reason ({@code
 * ax.firings.not.run{reason}}, counting every firing a row stands for: a late row skipped for 40
 * missed slots counts 40). Used from the loop's owner thread.
 */
final class FiringMeters {

  private final Counter fired;
  private final Counter skipped;
  private final DistributionSummary lateness;
  private final Timer markTime;
  private final Map<NotRunReason, Counter> notRun = new EnumMap<>(NotRunReason.class);

  FiringMeters(MeterRegistry meters) {
    this.fired = meters.counter("ax.ticker.fired");
    this.skipped = meters.counter("ax.ticker.skipped");
    this.lateness =
        LatencyHistogram.register(
            meters, "ax.ticker.emit.lateness.ms", "fire lateness: emit time minus due time");
    this.markTime =
        Timer.builder("ax.ticker.mark")
            .description("the fenced transaction that marks a batch DISPATCHED (or SKIPPED)")
            .register(meters);
    for (NotRunReason reason : NotRunReason.values()) {
      // PAUSED: ingest counts it (a RESUME skips them), under the same name.
      notRun.put(
          reason,
          Counter.builder("ax.firings.not.run")
              .description(
                  "firings that did not run (skipped, missed, excluded, cancelled), by reason")
              .tag("reason", reason.tag())
              .register(meters));
    }
  }

  void marked(long nanos) {
    markTime.record(nanos, TimeUnit.NANOSECONDS);
  }

  void settled(FirePlan plan, FireResult result, long nowMs) {
    fired.increment(result.dispatched().size());
    skipped.increment(result.skipped().size());
    for (DueInstance instance : result.dispatched()) {
      lateness.record(Math.max(0, nowMs - instance.dueAtMs()));
    }
    for (FiringStore.NotRun firing : result.notRun()) {
      notRun.get(NotRunReason.of(firing.reason())).increment(plan.firingsOf(firing.row().seq()));
    }
  }
}
