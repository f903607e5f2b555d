package dev.ax.common.contract;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.TaskSpec;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;

/**
 * Turns the bytes of one message from {@code ax.task.commands} into a {@link TaskCommand} or a
 * rejection reason. Never throws for bad input: every way a producer can get a message wrong is an
 * expected outcome here. Stateless and thread-safe.
 */
public final class CommandReader {

  private final Duration defaultTimeout;

  /**
   * @param defaultTimeout the timeout of a task that sets none
   */
  public CommandReader(Duration defaultTimeout) {
    this.defaultTimeout = defaultTimeout;
  }

  public CommandReadResult read(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      return new CommandReadResult.Rejected("empty message");
    }
    JsonNode root;
    try {
      root = AxJson.MAPPER.readTree(bytes);
    } catch (IOException e) {
      return new CommandReadResult.Rejected("malformed JSON: " + firstLine(e.getMessage()));
    }
    if (root == null || !root.isObject()) {
      return new CommandReadResult.Rejected("a command must be a JSON object");
    }
    try {
      return new CommandReadResult.Accepted(readCommand(root));
    } catch (InvalidFieldException e) {
      return new CommandReadResult.Rejected(e.getMessage());
    }
  }

  private TaskCommand readCommand(JsonNode root) {
    long version = TaskSpecJson.requireLong(root, "v");
    if (version < 1 || version > AxJson.VERSION) {
      throw new InvalidFieldException(
          "unsupported contract version v="
              + version
              + " (this AX reads 1.."
              + AxJson.VERSION
              + ")");
    }
    String typeText = TaskSpecJson.optionalText(root, "type", "CREATE").toUpperCase(Locale.ROOT);
    CommandType type;
    try {
      type = CommandType.valueOf(typeText);
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException(
          "unknown command type '"
              + typeText
              + "' (expected one of CREATE, CANCEL, PAUSE, RESUME, RUN_NOW, TRIGGER)");
    }
    String taskId = TaskSpecJson.requireText(root, "taskId");
    if (!TaskSpecJson.TASK_ID.matcher(taskId).matches()) {
      throw new InvalidFieldException(
          "taskId must match " + TaskSpecJson.TASK_ID.pattern() + ": '" + taskId + "'");
    }
    String traceId = TaskSpecJson.optionalText(root, "traceId", null);
    if (traceId == null || traceId.isBlank()) {
      traceId = UUID.randomUUID().toString();
    } else if (traceId.length() > 128) {
      throw new InvalidFieldException("traceId must be at most 128 characters");
    }
    TaskSpec spec = null;
    if (type == CommandType.CREATE) {
      spec = TaskSpecJson.read(taskId, root, defaultTimeout);
    }
    String flowRunId = null;
    if (type == CommandType.TRIGGER) {
      flowRunId = TaskSpecJson.requireText(root, "flowRunId");
      if (flowRunId.length() > InstanceIds.MAX_LENGTH) {
        throw new InvalidFieldException(
            "flowRunId must be at most " + InstanceIds.MAX_LENGTH + " characters");
      }
    }
    return new TaskCommand(
        (int) version,
        type,
        taskId,
        spec,
        traceId,
        spec != null && !root.hasNonNull("timeoutMs"),
        flowRunId);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
