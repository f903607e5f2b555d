package dev.ax.compose.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class BenchSeriesTest {

  private final BenchSeries series = new BenchSeries();

  @Test
  void countsTheRunsWithinBothBoundsOnly() {
    series.add(new BenchSeries.Run(10, 31, 60, 12, 100));
    series.add(new BenchSeries.Run(12, 50, 70, 14, 120)); // p99 not under 50
    series.add(new BenchSeries.Run(11, 45, 200, 13, 110)); // max not under 200
    series.add(new BenchSeries.Run(9, 28, 199, 11, 90));

    assertThat(series.within(50, 200)).isEqualTo(2);
  }

  @Test
  void theMedianOfAnEvenCountIsTheLowerMiddle() {
    series.add(new BenchSeries.Run(10, 40, 60, 12, 100));
    series.add(new BenchSeries.Run(12, 30, 70, 14, 120));
    series.add(new BenchSeries.Run(11, 90, 120, 13, 110));
    series.add(new BenchSeries.Run(9, 20, 50, 11, 90));

    assertThat(series.median(BenchSeries.Run::p99Ms)).isEqualTo(30);
    assertThat(series.median(BenchSeries.Run::maxMs)).isEqualTo(60);
  }

  @Test
  void printsEveryRunAndAMachineReadableLine() {
    series.add(new BenchSeries.Run(10, 31, 60, 12, 100));
    series.add(new BenchSeries.Run(12, 63, 90, 20, 120));
    StringWriter text = new StringWriter();

    series.print(new PrintWriter(text), 50, 200);

    assertThat(text.toString())
        .contains("  p99       31 / 63   median 31")
        .contains("1 of 2 runs with p99 under 50 ms and max under 200 ms")
        .contains(
            "SERIES runs=2 within=1 p99=31,63 max=60,90 p50=10,12 fire_p99=12,20 steal_ms=100,120");
  }

  @Test
  void aSeriesWithoutRunsHasNoMedian() {
    assertThatThrownBy(() -> series.median(BenchSeries.Run::p99Ms))
        .isInstanceOf(IllegalStateException.class);
  }
}
