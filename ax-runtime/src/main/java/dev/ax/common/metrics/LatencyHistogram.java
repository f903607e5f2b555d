package dev.ax.common.metrics;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The one way AX measures a latency in milliseconds: a distribution summary published as a
 * Prometheus histogram with the service-level buckets below ({@code _bucket{le=...}}, which sum
 * across replicas and compare to a threshold exactly), plus this process's p50 and p99 for a quick
 * look. Names end in {@code .ms}; docs/METRICS.md lists every one.
 */
public final class LatencyHistogram {

  /** The bucket bounds, in ms: the alert thresholds (100 ms, 500 ms, 2 s, ...) are among them. */
  public static final double[] SLO_BUCKETS_MS = {
    10, 50, 100, 250, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000
  };

  private LatencyHistogram() {}

  /** A histogram named {@code name} (ending in {@code .ms}) with the SLO buckets. */
  public static DistributionSummary.Builder builder(String name, String description) {
    if (!name.endsWith(".ms")) {
      throw new IllegalArgumentException("a latency's name ends in .ms: " + name);
    }
    return DistributionSummary.builder(name)
        .description(description)
        .serviceLevelObjectives(SLO_BUCKETS_MS)
        .publishPercentiles(0.5, 0.99);
  }

  /** {@link #builder} registered as it is. */
  public static DistributionSummary register(
      MeterRegistry meters, String name, String description) {
    return builder(name, description).register(meters);
  }
}
