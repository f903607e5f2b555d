package dev.ax.dispatcher.run;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryBudget;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.store.AfterFailure;
import dev.ax.common.time.SaturatingMillis;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;

/**
 * Decides what follows a failed attempt: retry {@code n} of the task's policy after its (jittered)
 * backoff, or DEAD when the budget is spent (failed attempts only count: a run taken back because
 * its dispatcher died does not), the failure is not retryable (the executor said so, or the task or
 * its executor is missing), or retries are switched off. Pure apart from the two suppliers;
 * thread-safe if they are.
 */
public final class RetryPlanner {

  private final BooleanSupplier retriesEnabled;
  private final DoubleSupplier random;

  /**
   * @param retriesEnabled the retries switch, read at each decision
   * @param random numbers in [0, 1) for the jitter
   */
  public RetryPlanner(BooleanSupplier retriesEnabled, DoubleSupplier random) {
    this.retriesEnabled = retriesEnabled;
    this.random = random;
  }

  /**
   * @return null for a success (nothing follows), else the retry or the death to record with it
   */
  public AfterFailure plan(Completion completion, long nowMs) {
    if (completion.status() == InstanceStatus.SUCCESS) {
      return null;
    }
    RetryPolicy policy = completion.retryPolicy();
    if (policy == null) {
      return new AfterFailure.Dead("not retryable: the task or its executor is missing");
    }
    if (completion.result() != null && !completion.result().retryable()) {
      return new AfterFailure.Dead("not retryable: the executor said so");
    }
    if (!retriesEnabled.getAsBoolean()) {
      return new AfterFailure.Dead("retries are switched off");
    }
    // Failed attempts only: a run the reaper took back (its dispatcher died) used up no retry.
    int failedInBudget = completion.claimed().failedInBudgetIfThisFails();
    if (failedInBudget > policy.maxRetries()) {
      return new AfterFailure.Dead(RetryBudget.exhausted(failedInBudget, policy.maxRetries()));
    }
    Duration delay = policy.delayBeforeRetry(failedInBudget, random.getAsDouble());
    // Saturating: a backoff of Long.MAX_VALUE ms is a retry at the far-future bound (never), not
    // a wrapped sum in the past that retries at once.
    return new AfterFailure.Retry(
        SaturatingMillis.atMs(nowMs, delay),
        "retry "
            + failedInBudget
            + " of "
            + policy.maxRetries()
            + " in "
            + delay.toMillis()
            + " ms");
  }
}
