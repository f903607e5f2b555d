package dev.ax.common.contract;

import dev.ax.common.model.TaskSpec;
import java.util.Objects;

/**
 * A parsed, valid command from {@code ax.task.commands}.
 *
 * @param spec the task for CREATE, its new version for UPDATE; null for commands that only name a
 *     task
 * @param traceId from the message, or generated at ingest when the producer sent none
 * @param timeoutDefaulted true when the task set no timeoutMs and got the default
 * @param flowRunId for TRIGGER: the flow run the instance joins; else null
 * @param commandId for a lifecycle command (CANCEL, PAUSE, RESUME, RUN_NOW): what makes a second
 *     delivery of the same command a duplicate; null when the producer sent none (ingest then uses
 *     the record's position)
 * @param reason for a lifecycle command: the operator's why, kept in the audit; null when none
 */
public record TaskCommand(
    int v,
    CommandType type,
    String taskId,
    TaskSpec spec,
    String traceId,
    boolean timeoutDefaulted,
    String flowRunId,
    String commandId,
    String reason) {
  public TaskCommand {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(taskId, "taskId");
  }

  /**
   * A command that changes an existing task (CANCEL, PAUSE, RESUME, RUN_NOW, UPDATE), as opposed to
   * CREATE and TRIGGER.
   */
  public boolean isLifecycle() {
    return type == CommandType.CANCEL
        || type == CommandType.PAUSE
        || type == CommandType.RESUME
        || type == CommandType.RUN_NOW
        || type == CommandType.UPDATE;
  }
}
