package dev.ax.common.contract;

/** What a message on {@code ax.task.commands} asks for. */
public enum CommandType {
  CREATE,
  CANCEL,
  /** Pause a task, or every ACTIVE task of a group ({@code group} instead of {@code taskId}). */
  PAUSE,
  /** Resume a task, or every PAUSED task of a group ({@code group} instead of {@code taskId}). */
  RESUME,
  RUN_NOW,
  /** A new version of an existing task's spec (a full spec, as for CREATE). */
  UPDATE,
  /**
   * Cancel a task and mark it DELETED: it fires no more and takes no further command; its row and
   * history stay until retention removes them.
   */
  DELETE,
  /**
   * Run a DEPENDENCY task in a flow run: sent by the dependency resolver when every upstream of the
   * task succeeded in that flow run ({@code flowRunId} required).
   */
  TRIGGER;

  /** True for the types that may name a whole group instead of one task. */
  public boolean takesGroup() {
    return this == PAUSE || this == RESUME;
  }
}
