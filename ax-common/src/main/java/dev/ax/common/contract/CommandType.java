package dev.ax.common.contract;

/** What a message on {@code ax.task.commands} asks for. */
public enum CommandType {
  CREATE,
  CANCEL,
  PAUSE,
  RESUME,
  RUN_NOW,
  /** A new version of an existing task's spec (a full spec, as for CREATE). */
  UPDATE,
  /**
   * Run a DEPENDENCY task in a flow run: sent by the dependency resolver when every upstream of the
   * task succeeded in that flow run ({@code flowRunId} required).
   */
  TRIGGER
}
