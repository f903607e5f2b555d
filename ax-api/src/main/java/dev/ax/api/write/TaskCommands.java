package dev.ax.api.write;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.kafka.CommandSender;
import dev.ax.common.contract.AxJson;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import java.util.Locale;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The lifecycle commands an operator sends, the same from the CLI ({@code ax task pause ...}) and
 * the API ({@code POST /api/v1/tasks/{taskId}/pause ...}): one JSON command on {@code
 * ax.task.commands} like any client's, keyed by the task id (the group, for a group's), with a
 * command id and a reason naming the operator, and one {@code ax_operator_log} row. Ingest applies
 * it, or rejects it with a reason on {@code ax.task.commands.rejected}. Thread-safe, like the
 * sender and the log it uses.
 */
public final class TaskCommands {

  /** The same alphabet as a traceId: the command id goes into audit rows. */
  public static final Pattern COMMAND_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  /** Ingest takes 500; the operator's name is appended. */
  public static final int MAX_REASON_CHARS = 400;

  /**
   * A command's type and target: one task, or for PAUSE and RESUME a whole group (exactly one of
   * {@code taskId} and {@code group} is set), in {@code namespace} (the ids as its producers write
   * them, without the namespace); sent to that namespace's commands topic.
   */
  public record Target(String type, String taskId, String group, Namespace namespace) {

    public Target {
      if ((taskId == null) == (group == null)) {
        throw new IllegalArgumentException("a command names a task or a group, not both or none");
      }
      java.util.Objects.requireNonNull(namespace, "namespace");
    }

    /** A target in the default namespace. */
    public Target(String type, String taskId, String group) {
      this(type, taskId, group, Namespace.DEFAULT);
    }

    /** The record key: the task's id, or the group's name. */
    public String key() {
      return group != null ? group : taskId;
    }

    /** "task x" or "group g", with the namespace unless it is the default one. */
    public String describe() {
      String named = group != null ? "group " + group : "task " + taskId;
      return namespace.isDefault() ? named : named + " in namespace " + namespace;
    }

    /** The action as the operator log names it: {@code task pause}, {@code task run-now}. */
    String action() {
      return "task " + type.toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** Where a command went: what a caller waits on (the command id) and its record. */
  public record Sent(String commandId, String topic, int partition, long offset) {}

  private final CommandSender sender;
  private final Topics topics;
  private final OperatorLog log;
  private final LongSupplier clockMs;

  public TaskCommands(CommandSender sender, Topics topics, OperatorLog log, LongSupplier clockMs) {
    this.sender = sender;
    this.topics = topics;
    this.log = log;
    this.clockMs = clockMs;
  }

  /** The topics commands go to. */
  public Topics topics() {
    return topics;
  }

  /**
   * Why {@code commandId} and {@code reason} cannot be sent, or null when they can (either may be
   * null: a random command id, a default reason).
   */
  public static String problem(String commandId, String reason) {
    if (commandId != null && !COMMAND_ID.matcher(commandId).matches()) {
      return "the command id must match " + COMMAND_ID.pattern() + ": " + commandId;
    }
    if (reason != null && (reason.isBlank() || reason.chars().anyMatch(Character::isISOControl))) {
      return "the reason must be one line of text";
    }
    if (reason != null && reason.length() > MAX_REASON_CHARS) {
      return "the reason must be at most " + MAX_REASON_CHARS + " characters";
    }
    return null;
  }

  /**
   * Sends {@code fields} (a copy, completed with the command's own fields) as a {@code target}
   * command by {@code operator}, and records it in the operator log.
   *
   * @throws IllegalArgumentException for a command id or reason {@link #problem} refuses
   * @throws CommandSender.SendFailedException when the broker does not take it in time
   */
  public Sent send(
      ObjectNode fields, Target target, String commandId, String reason, String operator)
      throws InterruptedException {
    String problem = problem(commandId, reason);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    String id = commandId == null ? "ax-" + UUID.randomUUID() : commandId;
    ObjectNode command = fields.deepCopy();
    command.put("v", AxJson.VERSION).put("type", target.type());
    if (target.group() != null) {
      command.put("group", target.group());
    } else {
      command.put("taskId", target.taskId());
    }
    command.put("commandId", id);
    String said = reason == null ? "by ax " + target.action() : reason;
    command.put("reason", said + " (by " + operator + ")");
    RecordMetadata sent =
        sender.send(topics.commands(target.namespace()), target.key(), AxJson.write(command));
    log.record(
        operator,
        target.action(),
        target.group() != null
            ? "group " + target.namespace().qualify(target.group())
            : target.namespace().qualify(target.taskId()),
        command.path("reason").asText() + " [commandId " + id + "]",
        clockMs.getAsLong());
    return new Sent(id, sent.topic(), sent.partition(), sent.offset());
  }
}
