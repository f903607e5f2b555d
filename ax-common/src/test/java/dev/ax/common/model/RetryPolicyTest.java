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
}
