package dev.ax.common.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  @Test
  void backoffDoublesUpToTheMaximum() {
    RetryPolicy policy = RetryPolicy.DEFAULT;

    assertThat(policy.backoffBeforeRetry(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(policy.backoffBeforeRetry(2)).isEqualTo(Duration.ofSeconds(2));
    assertThat(policy.backoffBeforeRetry(3)).isEqualTo(Duration.ofSeconds(4));
    assertThat(policy.backoffBeforeRetry(7)).isEqualTo(Duration.ofSeconds(60));
    assertThat(policy.backoffBeforeRetry(100)).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void rejectsNonsenseWithTheValue() {
    assertThatThrownBy(
            () -> new RetryPolicy(-1, Duration.ofSeconds(1), Duration.ofSeconds(2), true))
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> new RetryPolicy(1, Duration.ofSeconds(5), Duration.ofSeconds(2), true))
        .hasMessageContaining("PT2S");
  }

  @Test
  void theLongestBackoffSaturatesAtTheMaximumAndNeverWraps() {
    Duration longest = Duration.ofMillis(Long.MAX_VALUE);
    RetryPolicy policy = new RetryPolicy(6, longest, longest, false);

    for (int n = 1; n <= 100; n++) {
      assertThat(policy.backoffBeforeRetry(n)).isEqualTo(longest);
    }
  }

  @Test
  void aDoublingThatOverflowsIsCappedByTheMaximum() {
    // 2^62 + 1 ms doubled wraps to a few ms with plain shifts; it must stay at the maximum.
    Duration base = Duration.ofMillis((1L << 62) + 1);
    Duration max = Duration.ofMillis(Long.MAX_VALUE);
    RetryPolicy policy = new RetryPolicy(6, base, max, false);

    assertThat(policy.backoffBeforeRetry(1)).isEqualTo(base);
    assertThat(policy.backoffBeforeRetry(2)).isEqualTo(max);
    assertThat(policy.backoffBeforeRetry(3)).isEqualTo(max);
    assertThat(policy.backoffBeforeRetry(64)).isEqualTo(max);
  }

  @Test
  void backoffGrowsMonotonicallyForAnyBase() {
    RetryPolicy policy =
        new RetryPolicy(6, Duration.ofMillis(3), Duration.ofSeconds(Long.MAX_VALUE), false);
    Duration previous = Duration.ZERO;
    for (int n = 1; n <= 200; n++) {
      Duration backoff = policy.backoffBeforeRetry(n);
      assertThat(backoff).isGreaterThanOrEqualTo(previous).isPositive();
      previous = backoff;
    }
    assertThat(previous).isEqualTo(Duration.ofMillis(Long.MAX_VALUE));
  }

  @Test
  void jitterOfTheLongestBackoffStaysBetweenHalfAndAll() {
    Duration longest = Duration.ofMillis(Long.MAX_VALUE);
    RetryPolicy policy = new RetryPolicy(6, longest, longest, true);

    assertThat(policy.delayBeforeRetry(1, 0.0)).isEqualTo(Duration.ofMillis(Long.MAX_VALUE / 2));
    assertThat(policy.delayBeforeRetry(3, 0.9999999999))
        .isBetween(Duration.ofMillis(Long.MAX_VALUE / 2), longest);
  }
}
