package dev.ax.dispatcher.run;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryPolicy;
import dev.ax.dispatcher.executor.AttemptContext;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;

/**
 * How one claimed attempt ended, waiting to be recorded.
 *
 * @param executor null when no executor ran (task or executor missing)
 * @param result null when the executor threw or timed out
 * @param retryPolicy the task's, or null when the attempt cannot be retried at all (its task or
 *     executor is missing)
 * @param stackTrace the stack trace when the executor threw, else null; it goes to the dead letter,
 *     never to the log
 * @param output what the run said, masked and bounded ({@link Ending}); null when it said nothing
 */
public record Completion(
    ClaimedInstance claimed,
    String group,
    InstanceStatus status,
    String error,
    long startedAtMs,
    long finishedAtMs,
    TaskExecutor executor,
    AttemptContext context,
    ExecutionResult result,
    RetryPolicy retryPolicy,
    String stackTrace,
    String output) {

  /**
   * An attempt that never ran (its task or executor missing, or no worker took it): FAILED at
   * {@code nowMs}, with no executor, context, result or stack trace.
   *
   * @param retryPolicy the task's, or null when the attempt cannot be retried at all
   */
  public static Completion notRun(
      ClaimedInstance claimed, String group, String error, long nowMs, RetryPolicy retryPolicy) {
    return new Completion(
        claimed,
        group,
        InstanceStatus.FAILED,
        error,
        nowMs,
        nowMs,
        null,
        null,
        null,
        retryPolicy,
        null,
        null);
  }

  /** {@code attempt} ran to {@code ending} from {@code startedAtMs} to {@code finishedAtMs}. */
  static Completion ran(Attempt attempt, Ending ending, long startedAtMs, long finishedAtMs) {
    return new Completion(
        attempt.claimed(),
        attempt.task().spec().group(),
        ending.status(),
        ending.error(),
        startedAtMs,
        finishedAtMs,
        attempt.executor(),
        attempt.context(),
        ending.result(),
        attempt.task().spec().retry(),
        ending.stackTrace(),
        ending.output());
  }

  /**
   * A success as the recorder sees it, without the executor that ran it (a tool's or a test's
   * completion: the meters count it under executor type "none").
   */
  public static Completion succeeded(
      ClaimedInstance claimed, String group, long startedAtMs, long finishedAtMs) {
    return new Completion(
        claimed,
        group,
        InstanceStatus.SUCCESS,
        null,
        startedAtMs,
        finishedAtMs,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * A FAILED attempt as the recorder sees it, without the executor that ran it: its error, the
   * executor's result (null when it threw) and the policy that decides its retry.
   */
  public static Completion failed(
      ClaimedInstance claimed,
      String group,
      String error,
      long startedAtMs,
      long finishedAtMs,
      ExecutionResult result,
      RetryPolicy retryPolicy) {
    return new Completion(
        claimed,
        group,
        InstanceStatus.FAILED,
        error,
        startedAtMs,
        finishedAtMs,
        null,
        null,
        result,
        retryPolicy,
        null,
        null);
  }
}
