package dev.ax.common.store;

/** An instance waiting to fire: only what the ticker needs, never the task details. */
public record DueInstance(String instanceId, String taskId, long dueAtMs, String traceId) {}
