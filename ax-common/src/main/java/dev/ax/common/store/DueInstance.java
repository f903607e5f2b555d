package dev.ax.common.store;

/**
 * An instance waiting to fire: only what the ticker needs, never the task details.
 *
 * @param seq the row's compact numeric key, what the time wheel holds
 * @param taskVersion the version of the task spec the instance belongs to (0 when unknown)
 */
public record DueInstance(
    String instanceId, String taskId, long dueAtMs, String traceId, long seq, int taskVersion) {}
