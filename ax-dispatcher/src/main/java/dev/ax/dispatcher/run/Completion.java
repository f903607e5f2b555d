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
    String stackTrace) {}
