package dev.ax.common.contract;

/**
 * On {@code ax.task.scheduled}: an instance due soon was created (by ingest, or by the ticker's
 * fixed-delay chaining), so the ticker holds it without waiting for its next database load.
 *
 * @param seq the instance row's numeric key (what the ticker's wheel holds)
 * @param triggerGroup the task's trigger group (tasks firing at the same instants share it)
 */
public record TaskScheduledEvent(
    int v,
    String taskId,
    String instanceId,
    long dueAtMs,
    String traceId,
    long seq,
    String triggerGroup) {}
