package dev.ax.common.store;

/** What storing a new task did. */
public enum CreateOutcome {
  /** The task and its first instance were written. */
  CREATED,
  /** A task with this id exists already; nothing was written (creates are idempotent on taskId). */
  DUPLICATE
}
