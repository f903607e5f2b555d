package dev.ax.common.contract;

/**
 * On {@code ax.task.retry} (key = taskId): a failed attempt that will be retried. The instance is
 * RETRYING in the database already (recorded with the failure), so this event only saves the retry
 * stage a database scan; a lost one is found by that scan.
 *
 * @param failedAttempt the attempt that failed; the retry is attempt {@code failedAttempt + 1}
 * @param retryAtMs when the next attempt is due, on the database clock
 * @param seq the instance's row sequence (the key the retry wheel holds)
 * @param group the task's group
 */
public record TaskRetryEvent(
    int v,
    String taskId,
    String instanceId,
    long seq,
    int failedAttempt,
    long retryAtMs,
    String traceId,
    String group,
    String error) {}
