package dev.ax.common.contract;

/**
 * On {@code ax.task.scheduled}: ingest announces an instance due soon, so the ticker holds it
 * without waiting for its next database load.
 *
 * @param seq the instance row's numeric key (what the ticker's wheel holds)
 */
public record TaskScheduledEvent(
    int v, String taskId, String instanceId, long dueAtMs, String traceId, long seq) {}
