package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How {@code --history} spreads its rows over the retention. */
class BenchHistoryTest {

  @Test
  void theExpiredShareIsPastTheCutoffTheRestWithinItOldestFirst() {
    Duration retention = Duration.ofDays(30);
    BenchHistory history = new BenchHistory(1_000, 10, retention);
    long cutoffMs = retention.toMillis();

    assertThat(history.expiredRows()).isEqualTo(100);
    long previous = Long.MAX_VALUE;
    for (long i = 0; i < 1_000; i++) {
      long age = history.ageMs(i);
      assertThat(age).isLessThanOrEqualTo(previous);
      if (i < 100) {
        assertThat(age).isGreaterThan(cutoffMs).isLessThanOrEqualTo(cutoffMs + 3_600_000);
      } else {
        assertThat(age).isLessThan(cutoffMs).isGreaterThanOrEqualTo(60_000);
      }
      previous = age;
    }
  }

  @Test
  void aShortRetentionStillSpreadsAndNoRetentionMeansThirtyDays() {
    BenchHistory short1 = new BenchHistory(10, 0, Duration.ofSeconds(30));
    assertThat(short1.ageMs(0)).isLessThan(30_000).isGreaterThan(short1.ageMs(9));
    assertThat(short1.ageMs(9)).isGreaterThanOrEqualTo(15_000);

    assertThat(new BenchHistory(10, 0, Duration.ZERO).retention()).isEqualTo(Duration.ofDays(30));
    assertThat(new BenchHistory(0, 10, Duration.ZERO).asked()).isFalse();
    assertThat(new BenchHistory(10, 100, Duration.ofDays(1)).ageMs(9))
        .isGreaterThan(Duration.ofDays(1).toMillis());
  }
}
