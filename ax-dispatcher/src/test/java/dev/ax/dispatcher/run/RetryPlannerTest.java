package dev.ax.dispatcher.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.RetryPolicy;
import dev.ax.common.store.AfterFailure;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.spi.ExecutionResult;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class RetryPlannerTest {

  private static final RetryPolicy THREE_NO_JITTER =
      new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofSeconds(60), false);

  private final AtomicBoolean retriesOn = new AtomicBoolean(true);
  private final RetryPlanner planner = new RetryPlanner(retriesOn::get, () -> 0.5);

  private static Completion failed(
      int attempt, int retryBase, RetryPolicy policy, ExecutionResult result) {
    return failed(attempt, retryBase, 0, policy, result);
  }

  private static Completion failed(int attempt, int retryBase, int takenBack, RetryPolicy policy) {
    return failed(attempt, retryBase, takenBack, policy, null);
  }

  private static Completion failed(
      int attempt, int retryBase, int takenBack, RetryPolicy policy, ExecutionResult result) {
    ClaimedInstance claimed =
        new ClaimedInstance("t@1", "t", 1, attempt, 1, 1, "trace", retryBase, 7, "t@1", takenBack);
    return Completion.failed(claimed, "default", "boom", 0, 10, result, policy);
  }

  /** {@code after} is a retry. */
  private static AfterFailure.Retry asRetry(AfterFailure after) {
    assertThat(after).isInstanceOf(AfterFailure.Retry.class);
    return (AfterFailure.Retry) after;
  }

  /** {@code after} is a dead letter. */
  private static AfterFailure.Dead asDead(AfterFailure after) {
    assertThat(after).isInstanceOf(AfterFailure.Dead.class);
    return (AfterFailure.Dead) after;
  }

  @Test
  void eachFailureWithinTheBudgetIsRetriedAfterTheExponentialBackoff() {
    long nowMs = 1_000_000;
    long[] expected = {1000, 2000, 4000};
    for (int attempt = 1; attempt <= 3; attempt++) {
      AfterFailure.Retry retry =
          asRetry(
              planner.plan(
                  failed(attempt, 0, THREE_NO_JITTER, ExecutionResult.failure("x")), nowMs));
      assertThat(retry.atMs()).isEqualTo(nowMs + expected[attempt - 1]);
      assertThat(retry.reason()).startsWith("retry " + attempt + " of 3");
    }
  }

  @Test
  void theFailureAfterTheLastRetryIsDead() {
    AfterFailure after = planner.plan(failed(4, 0, THREE_NO_JITTER, null), 0);
    assertThat(asDead(after).reason())
        .isEqualTo("retries exhausted: 4 attempt(s) failed, 3 retries allowed");
  }

  @Test
  void aReplayedInstanceGetsAFreshBudget() {
    // Attempts 1-4 failed, then the dead letter was replayed (retry base 4): attempt 5 is the
    // first of a new budget.
    assertThat(planner.plan(failed(5, 4, THREE_NO_JITTER, null), 0))
        .isInstanceOf(AfterFailure.Retry.class);
    assertThat(planner.plan(failed(8, 4, THREE_NO_JITTER, null), 0))
        .isInstanceOf(AfterFailure.Dead.class);
  }

  @Test
  void runsTakenBackBecauseTheirDispatcherDiedUseUpNoRetry() {
    RetryPolicy two = new RetryPolicy(2, Duration.ofSeconds(1), Duration.ofSeconds(60), false);
    // Attempt 1 failed, attempt 2 was taken back, attempt 3 fails: the second failure, retry 2.
    AfterFailure.Retry second = asRetry(planner.plan(failed(3, 0, 1, two), 0));
    assertThat(second.reason()).startsWith("retry 2 of 2");
    assertThat(second.atMs()).isEqualTo(2000);
    // Attempt 4 fails too: three failures, two retries allowed; the take-back is not counted.
    AfterFailure dead = planner.plan(failed(4, 0, 1, two), 0);
    assertThat(asDead(dead).reason())
        .isEqualTo("retries exhausted: 3 attempt(s) failed, 2 retries allowed");
  }

  @Test
  void aTaskWithoutRetriesWhoseFirstRunWasTakenBackFailsOnceBeforeItIsDead() {
    RetryPolicy none = new RetryPolicy(0, Duration.ofSeconds(1), Duration.ofSeconds(1), false);
    AfterFailure dead = planner.plan(failed(2, 0, 1, none), 0);
    assertThat(asDead(dead).reason())
        .isEqualTo("retries exhausted: 1 attempt(s) failed, 0 retries allowed");
  }

  @Test
  void aPermanentFailureAMissingTaskOrRetriesSwitchedOffGoStraightToDead() {
    assertThat(
            planner.plan(failed(1, 0, THREE_NO_JITTER, ExecutionResult.permanentFailure("4xx")), 0))
        .isInstanceOf(AfterFailure.Dead.class);
    assertThat(planner.plan(failed(1, 0, null, null), 0)).isInstanceOf(AfterFailure.Dead.class);
    retriesOn.set(false);
    AfterFailure off = planner.plan(failed(1, 0, THREE_NO_JITTER, null), 0);
    assertThat(asDead(off).reason()).contains("switched off");
  }

  @Test
  void jitterPicksBetweenHalfAndAllOfTheBackoff() {
    RetryPolicy jittered = new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofSeconds(60), true);
    assertThat(jittered.delayBeforeRetry(2, 0.0)).isEqualTo(Duration.ofMillis(1000));
    assertThat(jittered.delayBeforeRetry(2, 0.999999)).isEqualTo(Duration.ofMillis(2000));
    assertThat(jittered.delayBeforeRetry(2, 0.5).toMillis()).isBetween(1000L, 2000L);
    assertThat(jittered.delayBeforeRetry(30, 0.999999)).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void aSuccessNeedsNothing() {
    ClaimedInstance claimed = new ClaimedInstance("t@1", "t", 1, 1, 1, 1, "trace", 0, 7, "t@1", 0);
    Completion ok = Completion.succeeded(claimed, "default", 0, 1);
    assertThat(planner.plan(ok, 0)).isNull();
  }

  @Test
  void theLongestBackoffRetriesNeverInsteadOfAtOnce() {
    Duration longest = Duration.ofMillis(Long.MAX_VALUE);
    RetryPolicy policy = new RetryPolicy(6, longest, longest, true);
    long nowMs = 1_780_000_000_000L;

    for (int attempt = 1; attempt <= 6; attempt++) {
      AfterFailure after = planner.plan(failed(attempt, 0, policy, null), nowMs);
      assertThat(asRetry(after).atMs()).isEqualTo(SaturatingMillis.FAR_FUTURE_MS);
    }
  }
}
