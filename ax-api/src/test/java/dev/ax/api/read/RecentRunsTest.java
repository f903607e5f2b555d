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
                new Row("t", "SCHEDULED", null, null),
                new Row("t", "RETRYING", 1_000L, 1_040L),
                new Row("t", "SUCCESS", 2_000L, 2_010L),
                new Row("t", "DEAD", 3_000L, 3_300L),
                new Row("t", "CANCELLED", null, null)));
    assertThat(totals).isEqualTo(new Totals(5, 3, 2, 40L, (40L + 10L + 300L) / 3));
  }

  @Test
  void aTaskThatNeverRanHasNoDurations() {
    assertThat(RecentRuns.totalsOf(List.of(new Row("t", "SCHEDULED", null, null))))
        .isEqualTo(new Totals(1, 0, 0, null, null));
    assertThat(RecentRuns.totalsOf(List.of())).isEqualTo(new Totals(0, 0, 0, null, null));
  }

  @Test
  void aClockStepBackDoesNotMakeANegativeDuration() {
    assertThat(
            RecentRuns.totalsOf(List.of(new Row("t", "SUCCESS", 5_000L, 4_000L))).lastDurationMs())
        .isZero();
  }
}
