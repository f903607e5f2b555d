package dev.ax.common.contract;

import dev.ax.common.model.TaskSpec;
import java.util.Objects;

/**
 * A parsed, valid command from {@code ax.task.commands}.
 *
 * @param spec the task for CREATE; null for commands that only name a task
 * @param traceId from the message, or generated at ingest when the producer sent none
 * @param timeoutDefaulted true when the task set no timeoutMs and got the default
 * @param flowRunId for TRIGGER: the flow run the instance joins; else null
 */
public record TaskCommand(
    int v,
    CommandType type,
    String taskId,
    TaskSpec spec,
    String traceId,
    boolean timeoutDefaulted,
    String flowRunId) {
  public TaskCommand {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(taskId, "taskId");
  }
}
