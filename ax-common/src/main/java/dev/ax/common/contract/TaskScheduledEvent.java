package dev.ax.common.contract;

/**
 * On {@code ax.task.scheduled}: ingest announces an instance due soon, so the ticker holds it
 * without waiting for its next database load.
 */
public record TaskScheduledEvent(
    int v, String taskId, String instanceId, long dueAtMs, String traceId) {}
