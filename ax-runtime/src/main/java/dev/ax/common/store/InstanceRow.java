package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;

/** An instance row as stored, for operators, the CLI and tests. */
public record InstanceRow(
    String instanceId,
    String taskId,
    InstanceStatus status,
    int attempt,
    long dueAtMs,
    String owner,
    Long claimedAtMs,
    Long finishedAtMs,
    String lastError,
    String traceId) {}
