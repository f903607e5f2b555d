package dev.ax.common.contract;

import dev.ax.common.model.InstanceStatus;

/**
 * On {@code ax.task.deadletter} (key = taskId): an instance that became DEAD. The dead-letter stage
 * stores it with the task as it was and every attempt from the audit log.
 *
 * @param attempts attempts made in all
 * @param lastStatus how the last attempt ended: FAILED or TIMEOUT
 * @param reason why there is no further attempt (exhausted, not retryable, retries off, or, from
 *     the reaper, taken back {@code AX_MAX_TAKEBACKS} times after its dispatcher died); counts of
 *     attempts in it are of failed attempts, never of runs taken back
 * @param stackTrace the last attempt's stack trace when it threw, else null (never logged)
 */
public record TaskDeadEvent(
    int v,
    String taskId,
    String instanceId,
    int attempts,
    InstanceStatus lastStatus,
    String error,
    String reason,
    String stackTrace,
    String traceId,
    String group,
    long deadAtMs) {}
