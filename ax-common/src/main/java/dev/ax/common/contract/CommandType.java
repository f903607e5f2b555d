package dev.ax.common.contract;

/** What a message on {@code ax.task.commands} asks for. */
public enum CommandType {
  CREATE,
  CANCEL,
  PAUSE,
  RESUME,
  RUN_NOW
}
