package dev.ax.api.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.api.read.RecentRuns.Row;
import dev.ax.api.read.RecentRuns.Totals;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecentRunsTest {

  @Test
  void runsFailuresAndDurationsCountEndedInstancesOnly() {
    Totals totals =
        RecentRuns.totalsOf(
            List.of(
                new Row("t", "SCHEDULED", 99990L, null, null),
                new Row("t", "RETRYING", 99980L, 1_000L, 1_040L),
                new Row("t", "SUCCESS", 99970L, 2_000L, 2_010L),
                new Row("t", "DEAD", 99960L, 3_000L, 3_300L),
                new Row("t", "CANCELLED", 99950L, null, null)));
    assertThat(totals).isEqualTo(new Totals(5, 3, 2, 40L, (40L + 10L + 300L) / 3));
  }

  @Test
  void aTaskThatNeverRanHasNoDurations() {
    assertThat(RecentRuns.totalsOf(List.of(new Row("t", "SCHEDULED", 99940L, null, null))))
        .isEqualTo(new Totals(1, 0, 0, null, null));
    assertThat(RecentRuns.totalsOf(List.of())).isEqualTo(new Totals(0, 0, 0, null, null));
  }

  @Test
  void anUnknownStatusCountsAsNothing() {
    assertThat(RecentRuns.totalsOf(List.of(new Row("t", "FROM_THE_FUTURE", 1L, 1L, 2L))))
        .isEqualTo(new Totals(1, 0, 0, null, null));
  }

  @Test
  void aClockStepBackDoesNotMakeANegativeDuration() {
    assertThat(
            RecentRuns.totalsOf(List.of(new Row("t", "SUCCESS", 99930L, 5_000L, 4_000L)))
                .lastDurationMs())
        .isZero();
  }
}
