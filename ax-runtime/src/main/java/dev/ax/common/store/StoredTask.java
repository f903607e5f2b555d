package dev.ax.common.store;

import dev.ax.common.model.TaskSpec;

/** A task as stored: its spec and the version that spec has (bumped by every update). */
public record StoredTask(TaskSpec spec, int version, String state, String traceId) {}
