package dev.ax.common.model;

/**
 * Where an instance (one firing of a task) stands. The allowed moves between statuses live in one
 * place, {@link StatusTransitions}; every SQL UPDATE mirrors them with {@code WHERE status = ?}.
 */
public enum InstanceStatus {
  SCHEDULED,
  DISPATCHED,
  RUNNING,
  SUCCESS,
  FAILED,
  TIMEOUT,
  RETRYING,
  DEAD,
  CANCELLED,
  SKIPPED;

  /** True when no further transition leaves this status (retries aside, see the table). */
  public boolean isTerminal() {
    return StatusTransitions.allowedFrom(this).isEmpty();
  }
}
