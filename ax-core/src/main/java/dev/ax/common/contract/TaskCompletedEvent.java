package dev.ax.common.contract;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TriggerType;

/**
 * On {@code ax.task.completed} (key = taskId): how one attempt of one instance ended. Times are
 * epoch milliseconds on the database clock.
 *
 * @param lateMs claim time minus due time
 * @param error a one-line summary for FAILED and TIMEOUT, null on SUCCESS
 * @param node the dispatcher that ran it
 * @param instanceStatus where the instance stands after this attempt: SUCCESS; RETRYING (another
 *     attempt follows); DEAD (no more attempts: a dead letter); FAILED or TIMEOUT only from a
 *     dispatcher older than retries. Null from such a dispatcher too.
 * @param flowRunId the flow run the instance belongs to (its own id when it started one): what the
 *     dependency resolver joins on
 * @param triggerType the task's trigger type, so a consumer that cares about one type (the
 *     FIXED_DELAY chainer) need not look the task up; null when the task was not found, or from a
 *     dispatcher older than this field
 */
public record TaskCompletedEvent(
    int v,
    String taskId,
    String instanceId,
    int attempt,
    InstanceStatus status,
    long dueAtMs,
    long claimedAtMs,
    long startedAtMs,
    long finishedAtMs,
    long durationMs,
    long lateMs,
    String traceId,
    String error,
    String node,
    InstanceStatus instanceStatus,
    String flowRunId,
    TriggerType triggerType) {}
