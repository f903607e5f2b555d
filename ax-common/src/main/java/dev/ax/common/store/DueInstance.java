package dev.ax.common.store;

/**
 * An instance waiting to fire: only what the ticker needs, never the task details.
 *
 * @param seq the row's compact numeric key, what the time wheel holds
 */
public record DueInstance(
    String instanceId, String taskId, long dueAtMs, String traceId, long seq) {}
