package dev.ax.retry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RetryQuotaTest {

  @Test
  void aBurstIsFlattenedToTheRate() {
    RetryQuota quota = new RetryQuota(100, 1_000_000, 0);
    int granted = quota.take(5_000, 0, 0);
    for (long nowMs = 10; nowMs <= 10_000; nowMs += 10) {
      granted += quota.take(5_000, 0, nowMs);
    }
    // 10 s at 100/s, plus the first token: never more, whatever was asked.
    assertThat(granted).isBetween(999, 1001);
  }

  @Test
  void aQuietSpellBanksNoMoreThanATenthOfASecondOfPermits() {
    RetryQuota quota = new RetryQuota(100, 1_000_000, 0);
    assertThat(quota.take(5_000, 0, 60_000)).isEqualTo(10);
    assertThat(quota.take(5_000, 0, 60_000)).isZero();
  }

  @Test
  void noOneSecondWindowSeesMoreThanATenthOverTheRate() {
    RetryQuota quota = new RetryQuota(200, 1_000_000, 0);
    int[] perMs = new int[10_000];
    for (int nowMs = 0; nowMs < perMs.length; nowMs++) {
      perMs[nowMs] = quota.take(1_000, 0, nowMs);
    }
    int window = 0;
    int worst = 0;
    for (int nowMs = 0; nowMs < perMs.length; nowMs++) {
      window += perMs[nowMs] - (nowMs >= 1000 ? perMs[nowMs - 1000] : 0);
      worst = Math.max(worst, window);
    }
    assertThat(worst).isLessThanOrEqualTo(220);
  }

  @Test
  void theInFlightBoundHoldsRetriesBackWhateverTheRate() {
    RetryQuota quota = new RetryQuota(10_000, 50, 0);
    assertThat(quota.take(100, 40, 1_000)).isEqualTo(10);
    assertThat(quota.take(100, 50, 2_000)).isZero();
    assertThat(quota.take(100, 0, 3_000)).as("never more than the bound at once").isEqualTo(50);
  }
}
