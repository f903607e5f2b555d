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
  SKIPPED,
  /** Held while its task is paused: neither fired nor claimed; SCHEDULED again on RESUME. */
  PAUSED;

  /**
   * True when AX itself moves the instance no further: SUCCESS, DEAD, CANCELLED, SKIPPED. (A DEAD
   * instance leaves only by an operator's replay of its dead letter.)
   */
  public boolean isTerminal() {
    return this == DEAD || StatusTransitions.allowedFrom(this).isEmpty();
  }
}
