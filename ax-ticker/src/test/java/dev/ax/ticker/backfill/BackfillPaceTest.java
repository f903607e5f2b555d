package dev.ax.ticker.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The backfill's token bucket: its rate, its one-second cap, and its shares. */
class BackfillPaceTest {

  private static final long MS = 1_000_000L;

  @Test
  void createsAtTheRateOverTime() {
    BackfillPace pace = new BackfillPace(50);
    long now = 0;
    assertThat(pace.available(now)).isZero();
    int created = 0;
    for (int pass = 0; pass < 50; pass++) { // 10 s of passes every 200 ms
      now += 200 * MS;
      int n = pace.available(now);
      pace.spend(n);
      created += n;
    }
    assertThat(created).isBetween(499, 500);
  }

  @Test
  void aLatePassGetsAtMostOneSecondOfFirings() {
    BackfillPace pace = new BackfillPace(50);
    pace.available(0);
    assertThat(pace.available(60_000 * MS)).isEqualTo(50);
    pace.spend(50);
    assertThat(pace.available(60_000 * MS)).isZero();
    assertThat(pace.available(60_100 * MS)).isEqualTo(5);
  }

  @Test
  void whatIsNotSpentWaitsForTheNextPass() {
    BackfillPace pace = new BackfillPace(10);
    pace.available(0);
    assertThat(pace.available(500 * MS)).isEqualTo(5);
    pace.spend(2);
    assertThat(pace.available(600 * MS)).isEqualTo(4);
  }

  @Test
  void sharesSplitTheBudgetOldestFirst() {
    assertThat(BackfillPace.shares(10, 3)).containsExactly(4, 3, 3);
    assertThat(BackfillPace.shares(2, 3)).containsExactly(1, 1, 0);
    assertThat(BackfillPace.shares(5, 0)).isEmpty();
    assertThatThrownBy(() -> new BackfillPace(0)).hasMessageContaining("at least 1: 0");
  }
}
