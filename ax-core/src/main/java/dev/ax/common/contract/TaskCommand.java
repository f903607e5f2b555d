package dev.ax.common.contract;

import dev.ax.common.model.TaskSpec;
import java.util.Objects;

/**
 * A parsed, valid command from {@code ax.task.commands}.
 *
 * @param taskId the task; null for a group command (PAUSE or RESUME of a group)
 * @param group for a group command: the group whose tasks it changes; else null (a CREATE's or
 *     UPDATE's group is in its {@code spec})
 * @param spec the task for CREATE, its new version for UPDATE; null for commands that only name a
 *     task
 * @param traceId from the message, or generated at ingest when the producer sent none
 * @param timeoutDefaulted true when the task set no timeoutMs and got the default
 * @param flowRunId for TRIGGER: the flow run the instance joins; else null
 * @param upstreamSucceededAtMs for TRIGGER: when the upstream attempt that completed the join
 *     finished, as the resolver read it; null when the command does not say (then "now")
 * @param commandId for a lifecycle command (CANCEL, PAUSE, RESUME, RUN_NOW, UPDATE, DELETE): what
 *     makes a second delivery of the same command a duplicate; null when the producer sent none
 *     (ingest then uses the record's position)
 * @param reason for a lifecycle command: the operator's why, kept in the audit; null when none
 * @param interrupt for CANCEL and DELETE: a RUNNING attempt is CANCELLED too, and its dispatcher
 *     interrupts it; false: it finishes
 */
public record TaskCommand(
    int v,
    CommandType type,
    String taskId,
    String group,
    TaskSpec spec,
    String traceId,
    boolean timeoutDefaulted,
    String flowRunId,
    String commandId,
    String reason,
    boolean interrupt,
    Long upstreamSucceededAtMs) {
  public TaskCommand {
    Objects.requireNonNull(type, "type");
    if ((taskId == null) == (group == null)) {
      throw new IllegalArgumentException(
          "exactly one of taskId and group: " + taskId + ", " + group);
    }
    if (group != null && !type.takesGroup()) {
      throw new IllegalArgumentException(type + " cannot name a group");
    }
  }

  /** True when the command names a group rather than one task. */
  public boolean isGroup() {
    return group != null;
  }

  /**
   * What the command's record key must be, when it has one: the task id, or the group of a group
   * command (so that one task's, or one group's, commands share a partition and stay in order).
   */
  public String key() {
    return group != null ? group : taskId;
  }

  /**
   * A command that changes existing tasks (CANCEL, PAUSE, RESUME, RUN_NOW, UPDATE, DELETE), as
   * opposed to CREATE and TRIGGER.
   */
  public boolean isLifecycle() {
    return type != CommandType.CREATE && type != CommandType.TRIGGER;
  }
}
