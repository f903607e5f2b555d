package dev.ax.common.store;

import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;

/** A validated task about to be stored with its first instance, due at {@code firstDueAtMs}. */
public record NewTask(TaskSpec spec, String traceId, long firstDueAtMs) {

  /** False for a DEPENDENCY task: its instances come from its upstreams' successes. */
  public boolean hasFirstInstance() {
    return !(spec.trigger() instanceof Trigger.Dependency);
  }
}
