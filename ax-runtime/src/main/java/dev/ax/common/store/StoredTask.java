package dev.ax.common.store;

import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.TaskState;

/** A task as stored: its spec and the version that spec has (bumped by every update). */
public record StoredTask(TaskSpec spec, int version, TaskState state, String traceId) {}
