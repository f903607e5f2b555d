package dev.ax.common.store;

import dev.ax.common.model.TaskSpec;

/** A validated task about to be stored with its first instance, due at {@code firstDueAtMs}. */
public record NewTask(TaskSpec spec, String traceId, long firstDueAtMs) {}
