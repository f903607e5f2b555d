package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class BenchSeriesTest {

  private final BenchSeries series = new BenchSeries();

  /** {@code count} tasks, each {@code lateMs} late. */
  private static Histogram latenesses(long lateMs, int count) {
    Histogram histogram = new Histogram(3);
    histogram.recordValueWithCount(lateMs, count);
    return histogram;
  }

  @Test
  void poolsTheTasksOfAllRuns() {
    Histogram slowRun = latenesses(10, 97);
    slowRun.recordValueWithCount(120, 3); // this run alone: p99 120 ms
    series.add(new BenchSeries.Run(10, 120, 120, 20, 0), slowRun);
    series.add(new BenchSeries.Run(10, 10, 10, 5, 0), latenesses(10, 100));

    // 3 of 200 tasks late: the 99th percentile of the two runs together is still 120 ms ...
    assertThat(series.pooled().getValueAtPercentile(99)).isEqualTo(120);
    series.add(new BenchSeries.Run(10, 10, 10, 5, 0), latenesses(10, 100));
    // ... 3 of 300 is 1 %: not above the 99th percentile any more.
    assertThat(series.pooled().getValueAtPercentile(99)).isEqualTo(10);
    assertThat(series.pooled().getMaxValue()).isEqualTo(120);
    assertThat(series.pooled().getTotalCount()).isEqualTo(300);
  }

  @Test
  void countsTheRunsWithinBothBoundsOnly() {
    series.add(new BenchSeries.Run(10, 31, 60, 12, 100), latenesses(10, 100));
    series.add(new BenchSeries.Run(12, 50, 70, 14, 120), latenesses(10, 100)); // p99 not under 50
    series.add(new BenchSeries.Run(11, 45, 200, 13, 110), latenesses(10, 100)); // max not under 200
    series.add(new BenchSeries.Run(9, 28, 199, 11, 90), latenesses(10, 100));

    assertThat(series.within(50, 200)).isEqualTo(2);
  }

  @Test
  void theMedianOfAnEvenCountIsTheLowerMiddle() {
    series.add(new BenchSeries.Run(10, 40, 60, 12, 100), latenesses(10, 100));
    series.add(new BenchSeries.Run(12, 30, 70, 14, 120), latenesses(10, 100));
    series.add(new BenchSeries.Run(11, 90, 120, 13, 110), latenesses(10, 100));
    series.add(new BenchSeries.Run(9, 20, 50, 11, 90), latenesses(10, 100));

    assertThat(series.median(BenchSeries.Run::p99Ms)).isEqualTo(30);
    assertThat(series.median(BenchSeries.Run::maxMs)).isEqualTo(60);
  }

  @Test
  void printsEveryRunAndAMachineReadableLine() {
    series.add(new BenchSeries.Run(10, 31, 60, 12, 100), latenesses(10, 100));
    series.add(new BenchSeries.Run(12, 63, 90, 20, 120), latenesses(10, 100));
    StringWriter text = new StringWriter();

    series.print(new PrintWriter(text), 50, 200);

    assertThat(text.toString())
        .contains("  p99       31 / 63   median 31")
        .contains("all 2 runs' 200 tasks together: p50 10 / p99 10 / max 10")
        .contains("1 of 2 runs with p99 under 50 ms and max under 200 ms")
        .contains(
            "SERIES runs=2 within=1 pooled_p50=10 pooled_p99=10 pooled_max=10 p99=31,63 max=60,90 p50=10,12 fire_p99=12,20 steal_ms=100,120");
  }

  @Test
  void aSeriesWithoutRunsHasNoMedian() {
    assertThatThrownBy(() -> series.median(BenchSeries.Run::p99Ms))
        .isInstanceOf(IllegalStateException.class);
  }
}
