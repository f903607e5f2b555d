package dev.ax.common.store;

/**
 * An instance to create SCHEDULED: a task's first firing, or the next firing of a periodic task.
 *
 * @param instanceId {@code taskId@fireTimeMillis}, deterministic, so creating it twice creates one
 * @param dueAtMs when it fires (equal to the fire time unless a misfire policy moved it)
 * @param reason for the audit row, e.g. "created" or "next firing"
 * @param flowRunId the flow run it belongs to, or null when it starts its own (a dependency
 *     trigger's instance joins its upstream's)
 * @param oneShot its task's trigger is ONCE: its end may end the task ({@link OneShotEnd}); the end
 *     of an instance that is not one-shot never touches its task's row
 */
public record NewInstance(
    String instanceId,
    String taskId,
    int taskVersion,
    long dueAtMs,
    String traceId,
    String reason,
    String flowRunId,
    boolean oneShot) {}
