package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;

/**
 * How one attempt ended, to be recorded by the dispatcher that owns it.
 *
 * @param status SUCCESS, FAILED or TIMEOUT
 * @param error one-line summary, null on success
 */
public record Outcome(
    String instanceId,
    String taskId,
    int attempt,
    InstanceStatus status,
    String error,
    long finishedAtMs) {}
