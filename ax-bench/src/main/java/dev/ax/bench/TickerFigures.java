package dev.ax.bench;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the bench reads from the ticker's {@code /metrics} (Prometheus text) at one moment: the
 * window-load timer's histogram ({@code ax_ticker_window_load_seconds}), the rows retention deleted
 * ({@code ax_retention_deleted_total} by kind), the ticker's mark transactions (one per fired
 * batch, {@code ax_ticker_mark_seconds_count}), and the JVM's heap after its last collection
 * ({@code jvm_gc_live_data_size_bytes}) and in use ({@code jvm_memory_used_bytes{area="heap"}}).
 * Two snapshots give what happened between them ({@link #since}). Immutable.
 *
 * @param windowLoadBuckets cumulative count of loads by upper bound in seconds ({@code le})
 * @param windowLoads loads counted
 * @param windowLoadSeconds their summed time
 * @param windowLoadMaxSeconds the longest load of the last few minutes (a gauge, not a difference)
 * @param retainedInstances instances retention deleted
 * @param retainedAuditRows audit rows retention deleted
 * @param marks batches the ticker marked
 * @param heapAfterGcBytes the JVM's live data after its last major collection (a gauge)
 * @param heapUsedBytes heap in use (a gauge)
 */
record TickerFigures(
    TreeMap<Double, Double> windowLoadBuckets,
    double windowLoads,
    double windowLoadSeconds,
    double windowLoadMaxSeconds,
    double retainedInstances,
    double retainedAuditRows,
    double marks,
    double heapAfterGcBytes,
    double heapUsedBytes) {

  static final String WINDOW_LOAD = "ax_ticker_window_load_seconds";

  TickerFigures {
    windowLoadBuckets = new TreeMap<>(windowLoadBuckets);
  }

  /** No figures: a stage that does not answer. */
  static TickerFigures none() {
    return parse("");
  }

  /** The figures in a scrape; what it lacks is 0. */
  static TickerFigures parse(String text) {
    TreeMap<Double, Double> buckets = new TreeMap<>();
    for (String line : text.split("\n")) {
      if (!line.startsWith(WINDOW_LOAD + "_bucket{")) {
        continue;
      }
      int le = line.indexOf("le=\"");
      int end = le < 0 ? -1 : line.indexOf('"', le + 4);
      int close = line.lastIndexOf('}');
      if (end < 0 || close < 0) {
        continue;
      }
      String bound = line.substring(le + 4, end);
      try {
        double upper = bound.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(bound);
        double count = Double.parseDouble(line.substring(close + 1).trim().split("\\s+")[0]);
        buckets.merge(upper, count, Double::sum);
      } catch (NumberFormatException e) {
        // not a sample of a number: skipped
      }
    }
    return new TickerFigures(
        buckets,
        PrometheusSums.sum(text, WINDOW_LOAD + "_count"),
        PrometheusSums.sum(text, WINDOW_LOAD + "_sum"),
        PrometheusSums.sum(text, WINDOW_LOAD + "_max"),
        PrometheusSums.sumWhere(text, "ax_retention_deleted_total", "kind=\"instances\""),
        PrometheusSums.sumWhere(text, "ax_retention_deleted_total", "kind=\"audit\""),
        PrometheusSums.sum(text, "ax_ticker_mark_seconds_count"),
        PrometheusSums.sum(text, "jvm_gc_live_data_size_bytes"),
        PrometheusSums.sumWhere(text, "jvm_memory_used_bytes", "area=\"heap\""));
  }

  /** What was counted between {@code before} and this snapshot; gauges are this snapshot's. */
  TickerFigures since(TickerFigures before) {
    TreeMap<Double, Double> buckets = new TreeMap<>();
    for (Map.Entry<Double, Double> e : windowLoadBuckets.entrySet()) {
      buckets.put(
          e.getKey(), e.getValue() - before.windowLoadBuckets.getOrDefault(e.getKey(), 0.0));
    }
    return new TickerFigures(
        buckets,
        windowLoads - before.windowLoads,
        windowLoadSeconds - before.windowLoadSeconds,
        windowLoadMaxSeconds,
        retainedInstances - before.retainedInstances,
        retainedAuditRows - before.retainedAuditRows,
        marks - before.marks,
        heapAfterGcBytes,
        heapUsedBytes);
  }

  /**
   * The window loads' 99th percentile in ms, as the histogram bounds it: the upper bound of the
   * first bucket holding 99% of the loads (so "at most this"); NaN without loads, infinite when the
   * 1% slowest are past the last finite bucket.
   */
  double windowLoadP99Ms() {
    return windowLoadPercentileMs(0.99);
  }

  /** As {@link #windowLoadP99Ms()} for any quantile in (0, 1]. */
  double windowLoadPercentileMs(double quantile) {
    if (windowLoads <= 0) {
      return Double.NaN;
    }
    double wanted = quantile * windowLoads;
    for (Map.Entry<Double, Double> e : windowLoadBuckets.entrySet()) {
      if (e.getValue() >= wanted - 1e-9) {
        return e.getKey() * 1000;
      }
    }
    return Double.POSITIVE_INFINITY;
  }

  /** The window loads' mean in ms, NaN without loads. */
  double windowLoadMeanMs() {
    return windowLoads <= 0 ? Double.NaN : windowLoadSeconds * 1000 / windowLoads;
  }

  /**
   * Prints these figures, taken over the measured runs, mix or soak ({@code seconds} long): the
   * ticker's window loads and retention.
   */
  void print(double seconds, PrintWriter out) {
    out.println();
    if (windowLoads() <= 0) {
      out.println("Ticker: no window load timed (the ticker's metrics did not answer)");
    } else {
      out.printf(
          Locale.ROOT,
          "Ticker over the measured part (%.0f s): %.0f window loads, p99 <= %.0f ms (histogram"
              + " bound), mean %.1f ms, max of the last minutes %.0f ms%n",
          seconds,
          windowLoads(),
          windowLoadP99Ms(),
          windowLoadMeanMs(),
          windowLoadMaxSeconds() * 1000);
    }
    out.printf(
        Locale.ROOT,
        "Retention over the measured part: %.0f instances and %.0f audit rows deleted,"
            + " %.0f instance rows/s (%.0f rows/s with their audit rows)%n",
        retainedInstances(),
        retainedAuditRows(),
        retainedInstances() / Math.max(1e-3, seconds),
        (retainedInstances() + retainedAuditRows()) / Math.max(1e-3, seconds));
    out.printf(
        Locale.ROOT,
        "TICKER window_loads=%.0f window_load_p99_ms=%.0f window_load_mean_ms=%.1f"
            + " retention_instances_per_s=%.1f retention_rows_per_s=%.1f seconds=%.0f%n",
        windowLoads(),
        windowLoadP99Ms(),
        windowLoadMeanMs(),
        retainedInstances() / Math.max(1e-3, seconds),
        (retainedInstances() + retainedAuditRows()) / Math.max(1e-3, seconds),
        seconds);
    out.flush();
  }
}
