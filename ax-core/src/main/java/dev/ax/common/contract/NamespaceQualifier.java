package dev.ax.common.contract;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import java.util.List;

/**
 * Turns a command read from a namespace's topic into the command AX stores: its task id, group,
 * upstream ids, calendar names and flow run {@linkplain Namespace#qualify qualified} with the
 * namespace, so nothing it names can be another namespace's. A command of the default namespace is
 * returned as it is. Stateless.
 */
public final class NamespaceQualifier {

  /** The longest task id and group the schema holds, qualified. */
  static final int MAX_TASK_ID = 128;

  static final int MAX_GROUP = 64;

  private NamespaceQualifier() {}

  /** The command as stored in {@code namespace}, or the reason a qualified name would not fit. */
  public static CommandReadResult qualify(Namespace namespace, TaskCommand command) {
    if (namespace.isDefault()) {
      return new CommandReadResult.Accepted(command);
    }
    try {
      TaskSpec spec = command.spec() == null ? null : qualify(namespace, command.spec());
      return new CommandReadResult.Accepted(
          new TaskCommand(
              command.v(),
              command.type(),
              command.taskId() == null ? null : taskId(namespace, "taskId", command.taskId()),
              command.group() == null ? null : group(namespace, command.group()),
              spec,
              command.traceId(),
              command.timeoutDefaulted(),
              command.flowRunId() == null ? null : flowRun(namespace, command.flowRunId()),
              command.commandId(),
              command.reason(),
              command.interrupt(),
              command.upstreamSucceededAtMs()));
    } catch (InvalidFieldException e) {
      return new CommandReadResult.Rejected(e.getMessage());
    }
  }

  private static TaskSpec qualify(Namespace namespace, TaskSpec spec) {
    Trigger trigger = spec.trigger();
    if (trigger instanceof Trigger.Dependency dependency) {
      List<String> upstream =
          dependency.upstreamTaskIds().stream()
              .map(id -> taskId(namespace, "trigger.upstream", id))
              .toList();
      trigger = new Trigger.Dependency(upstream);
    }
    TaskSpec qualified =
        spec.withIds(
            taskId(namespace, "taskId", spec.taskId()), group(namespace, spec.group()), trigger);
    if (spec.rules().calendars().isEmpty()) {
      return qualified;
    }
    return qualified.withRules(
        spec.rules()
            .withCalendars(spec.rules().calendars().stream().map(namespace::qualify).toList()));
  }

  private static String taskId(Namespace namespace, String field, String id) {
    return fitting(namespace, field, id, MAX_TASK_ID);
  }

  private static String group(Namespace namespace, String group) {
    return fitting(namespace, "group", group, MAX_GROUP);
  }

  private static String flowRun(Namespace namespace, String flowRunId) {
    return fitting(namespace, "flowRunId", flowRunId, InstanceIds.MAX_LENGTH);
  }

  private static String fitting(Namespace namespace, String field, String id, int max) {
    String qualified = namespace.qualify(id);
    if (qualified.length() > max) {
      throw new InvalidFieldException(
          field
              + " is too long for namespace "
              + namespace
              + ": at most "
              + (max - namespace.qualifierLength())
              + " characters there ("
              + max
              + " with the namespace)");
    }
    return qualified;
  }
}
