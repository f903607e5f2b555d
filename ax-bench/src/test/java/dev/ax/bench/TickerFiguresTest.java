package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Reading the ticker's figures from a Prometheus scrape, and their difference over a run. */
class TickerFiguresTest {

  private static String scrape(long at1ms, long at100ms, long inf, double retained) {
    return String.join(
        "\n",
        "# HELP ax_ticker_window_load_seconds one window load",
        "# TYPE ax_ticker_window_load_seconds histogram",
        "ax_ticker_window_load_seconds_bucket{node=\"n\",le=\"0.001\"} " + at1ms,
        "ax_ticker_window_load_seconds_bucket{node=\"n\",le=\"0.1\"} " + at100ms,
        "ax_ticker_window_load_seconds_bucket{node=\"n\",le=\"+Inf\"} " + inf,
        "ax_ticker_window_load_seconds_count{node=\"n\"} " + inf,
        "ax_ticker_window_load_seconds_sum{node=\"n\"} " + inf * 0.01,
        "ax_ticker_window_load_seconds_max{node=\"n\"} 0.25",
        "ax_ticker_window_load_seconds_other 99",
        "ax_retention_deleted_total{kind=\"instances\",node=\"n\"} " + retained,
        "ax_retention_deleted_total{kind=\"audit\",node=\"n\"} " + retained * 4,
        "ax_retention_deleted_total{kind=\"tasks\",node=\"n\"} 7",
        "ax_ticker_mark_seconds_count{node=\"n\"} 12",
        "jvm_gc_live_data_size_bytes{node=\"n\"} 1.5E7",
        "jvm_memory_used_bytes{area=\"heap\",id=\"G1 Eden Space\"} 100",
        "jvm_memory_used_bytes{area=\"heap\",id=\"G1 Old Gen\"} 200",
        "jvm_memory_used_bytes{area=\"nonheap\",id=\"Metaspace\"} 400");
  }

  @Test
  void readsTheWindowLoadHistogramRetentionAndHeap() {
    TickerFigures figures = TickerFigures.parse(scrape(10, 99, 100, 50));

    assertThat(figures.windowLoads()).isEqualTo(100);
    assertThat(figures.windowLoadBuckets()).hasSize(3);
    assertThat(figures.windowLoadP99Ms()).as("99 of 100 within 100 ms").isEqualTo(100.0);
    assertThat(figures.windowLoadPercentileMs(0.05)).isEqualTo(1.0);
    assertThat(figures.windowLoadMeanMs()).isCloseTo(10.0, within(1e-9));
    assertThat(figures.windowLoadMaxSeconds()).isEqualTo(0.25);
    assertThat(figures.retainedInstances()).isEqualTo(50);
    assertThat(figures.retainedAuditRows()).isEqualTo(200);
    assertThat(figures.marks()).isEqualTo(12);
    assertThat(figures.heapAfterGcBytes()).isEqualTo(1.5e7);
    assertThat(figures.heapUsedBytes()).as("heap pools only").isEqualTo(300);
  }

  @Test
  void theP99OfARunIsTheBucketsDifference() {
    TickerFigures before = TickerFigures.parse(scrape(10, 99, 100, 50));
    // 100 more loads, of which 10 slower than 100 ms: the run's p99 is past the last bound.
    TickerFigures during = TickerFigures.parse(scrape(20, 189, 200, 80)).since(before);

    assertThat(during.windowLoads()).isEqualTo(100);
    assertThat(during.windowLoadP99Ms()).isInfinite();
    assertThat(during.windowLoadPercentileMs(0.9)).isEqualTo(100.0);
    assertThat(during.retainedInstances()).isEqualTo(30);
  }

  @Test
  void noScrapeIsNoLoad() {
    TickerFigures none = TickerFigures.none();

    assertThat(none.windowLoads()).isZero();
    assertThat(none.windowLoadP99Ms()).isNaN();
    assertThat(none.since(none).retainedInstances()).isZero();
  }
}
