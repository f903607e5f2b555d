package dev.ax.common.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RetryBudgetTest {

  @Test
  void runsTakenBackAreNotFailures() {
    // Attempts 1 and 3 failed, 2 was taken back.
    assertThat(RetryBudget.failed(3, 1, true)).isEqualTo(2);
    // Attempt 1 failed, 2 to 4 were taken back, 5's dispatcher died too (not a failure).
    assertThat(RetryBudget.failed(5, 3, false)).isEqualTo(1);
    // Every run's dispatcher died.
    assertThat(RetryBudget.failed(4, 3, false)).isZero();
    assertThat(RetryBudget.failed(1, 0, true)).isEqualTo(1);
    assertThat(RetryBudget.failed(0, 0, false)).isZero();
  }

  @Test
  void theReasonsCountFailedAttemptsAndRetries() {
    assertThat(RetryBudget.exhausted(2, 1))
        .isEqualTo("retries exhausted: 2 attempt(s) failed, 1 retry allowed");
    assertThat(RetryBudget.exhausted(3, 2))
        .isEqualTo("retries exhausted: 3 attempt(s) failed, 2 retries allowed");
    assertThat(RetryBudget.takenBackTooOften(3, 3, 5, 1, 2))
        .isEqualTo(
            "taken back 3 time(s) after its dispatcher died (at most 3), and its dispatcher died"
                + " again during attempt 5; 1 attempt(s) failed, 2 retries allowed");
    assertThat(RetryBudget.takenBackTooOften(0, 0, 1, 0, null))
        .isEqualTo(
            "its dispatcher died during attempt 1 and runs are not taken back (at most 0 times);"
                + " 0 attempt(s) failed");
  }
}
