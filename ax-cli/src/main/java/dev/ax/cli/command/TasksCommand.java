package dev.ax.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.cli.audit.OperatorLog;
import dev.ax.cli.kafka.CommandSender;
import dev.ax.common.contract.AxJson;
import dev.ax.common.kafka.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code ax task}: what a task is and what became of it ({@code show}, {@code list}, from the
 * database), and the commands that change it ({@code update}, {@code cancel}, {@code delete},
 * {@code pause}, {@code resume}, {@code run-now}; {@code pause} and {@code resume} also of a whole
 * group), produced to {@code ax.task.commands} like any client's: ingest applies them, and rejects
 * with a reason on {@code ax.task.commands.rejected} what cannot apply. Each subcommand runs on the
 * main thread.
 */
@Command(
    name = "task",
    description =
        "Tasks: show, list, and update, cancel, delete, pause, resume or run one now (pause and"
            + " resume also a whole group).",
    subcommands = {TaskShowCommand.class, TaskListCommand.class})
public final class TasksCommand extends DatabaseCommandGroup {

  static final String PROCESS_NAME = "ax-task";

  /** The same alphabet as a traceId: the command id goes into audit rows. */
  private static final Pattern COMMAND_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  /** Ingest takes 500; the operator's name is appended. */
  private static final int MAX_REASON_CHARS = 400;

  public TasksCommand() {
    super(PROCESS_NAME, "show, list, update, cancel, delete, pause, resume, run-now");
  }

  @Command(
      name = "cancel",
      mixinStandardHelpOptions = true,
      description =
          "Cancel a task: it fires no more; its pending instances are CANCELLED, a running"
              + " attempt finishes (or is interrupted, with --interrupt).")
  int cancel(@Mixin TaskChangeOptions change, @Mixin InterruptOption interrupt)
      throws InterruptedException {
    return send("CANCEL", change, interrupt);
  }

  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description =
          "Delete a task: cancelled as by cancel, and DELETED: it takes no further command and"
              + " `ax task list` hides it; its history stays until retention removes it.")
  int delete(@Mixin TaskChangeOptions change, @Mixin InterruptOption interrupt)
      throws InterruptedException {
    return send("DELETE", change, interrupt);
  }

  @Command(
      name = "pause",
      mixinStandardHelpOptions = true,
      description =
          "Pause a task, or every active task of a group with --group: pending instances are"
              + " held PAUSED until resumed; a running attempt finishes.")
  int pause(@Mixin TaskOrGroupOptions target) throws InterruptedException {
    return send("PAUSE", target);
  }

  @Command(
      name = "resume",
      mixinStandardHelpOptions = true,
      description =
          "Resume a paused task, or every paused task of a group with --group: held instances"
              + " fire at once; missed firings follow each task's misfire policy.")
  int resume(@Mixin TaskOrGroupOptions target) throws InterruptedException {
    return send("RESUME", target);
  }

  @Command(
      name = "run-now",
      mixinStandardHelpOptions = true,
      description =
          "Run an active task once more, now, besides its schedule; once per --command-id.")
  int runNow(@Mixin TaskChangeOptions change) throws InterruptedException {
    return send("RUN_NOW", change);
  }

  @Command(
      name = "update",
      mixinStandardHelpOptions = true,
      description =
          "Store a new version of a task from a JSON file holding its whole spec (trigger,"
              + " executor, timeoutMs, retry, ...), as for a CREATE; its next firing follows it.")
  int update(
      @Mixin TaskChangeOptions change,
      @Option(
              names = "--file",
              required = true,
              paramLabel = "<spec.json>",
              description = "The new spec: one JSON object, as a CREATE command's fields.")
          Path file)
      throws Exception {
    JsonNode specJson;
    try {
      specJson = AxJson.MAPPER.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new ParameterException(
          spec.commandLine(), "--file " + file + " is not readable JSON: " + e.getMessage());
    }
    if (!(specJson instanceof ObjectNode fields)) {
      throw new ParameterException(spec.commandLine(), "--file " + file + " must hold one object");
    }
    ObjectNode command = AxJson.MAPPER.createObjectNode();
    command.setAll(fields);
    return send(command, new Target("UPDATE", change.taskId, null), change);
  }

  private int send(String type, TaskChangeOptions change, InterruptOption interrupt)
      throws InterruptedException {
    ObjectNode command = AxJson.MAPPER.createObjectNode();
    if (interrupt.interrupt) {
      command.put("interrupt", true);
    }
    return send(command, new Target(type, change.taskId, null), change);
  }

  private int send(String type, TaskChangeOptions change) throws InterruptedException {
    return send(AxJson.MAPPER.createObjectNode(), new Target(type, change.taskId, null), change);
  }

  private int send(String type, TaskOrGroupOptions target) throws InterruptedException {
    if ((target.taskId == null) == (target.group == null)) {
      throw new ParameterException(
          spec.commandLine(),
          "give a <taskId> or --group <group>, "
              + (target.taskId == null ? "one of them" : "not both"));
    }
    return send(
        AxJson.MAPPER.createObjectNode(), new Target(type, target.taskId, target.group), target);
  }

  /**
   * A command's type and target: one task, or for PAUSE and RESUME a whole group (exactly one of
   * {@code taskId} and {@code group} is set).
   */
  private record Target(String type, String taskId, String group) {
    String key() {
      return group != null ? group : taskId;
    }

    String describe() {
      return group != null ? "group " + group : "task " + taskId;
    }
  }

  /**
   * Produces one lifecycle command ({@code fields} and the command's own), keyed by the task id
   * (the group, for a group's), records it in the operator log and says where it went.
   */
  private int send(ObjectNode command, Target target, ChangeReasonOptions change)
      throws InterruptedException {
    String type = target.type();
    String reason = change.reason;
    String commandId = change.commandId;
    String id = commandId == null ? "ax-" + UUID.randomUUID() : commandId;
    if (!COMMAND_ID.matcher(id).matches()) {
      throw new ParameterException(
          spec.commandLine(), "--command-id must match " + COMMAND_ID.pattern() + ": " + id);
    }
    if (reason != null && (reason.isBlank() || reason.chars().anyMatch(Character::isISOControl))) {
      throw new ParameterException(spec.commandLine(), "--reason must be one line of text");
    }
    if (reason != null && reason.length() > MAX_REASON_CHARS) {
      throw new ParameterException(
          spec.commandLine(), "--reason must be at most " + MAX_REASON_CHARS + " characters");
    }
    command.put("v", AxJson.VERSION).put("type", type);
    if (target.group() != null) {
      command.put("group", target.group());
    } else {
      command.put("taskId", target.taskId());
    }
    command.put("commandId", id);
    String operator = Operator.name();
    command.put(
        "reason",
        (reason == null ? "by ax task " + type.toLowerCase(Locale.ROOT).replace('_', '-') : reason)
            + " (by "
            + operator
            + ")");
    return CliDatabase.run(
        spec,
        workDir(),
        PROCESS_NAME,
        (db, out) -> {
          BrokerLocator.Target broker = workDir().locateBroker(db.config);
          Topics topics = new Topics(broker.topicPrefix());
          try (CommandSender sender = CommandSender.open(broker.kafka(), PROCESS_NAME)) {
            RecordMetadata sent =
                sender.send(topics.commands(), target.key(), AxJson.write(command));
            new OperatorLog(db.dataSource)
                .record(
                    operator,
                    "task " + type.toLowerCase(Locale.ROOT).replace('_', '-'),
                    target.group() != null ? "group " + target.group() : target.taskId(),
                    command.path("reason").asText() + " [commandId " + id + "]",
                    db.clock.millis());
            out.printf(
                Locale.ROOT,
                "sent %s for %s (commandId %s) to %s partition %d offset %d; `%s` shows its"
                    + " effect, %s a rejection%n",
                type,
                target.describe(),
                id,
                sent.topic(),
                sent.partition(),
                sent.offset(),
                target.group() != null
                    ? "ax task list --group " + target.group()
                    : "ax task show " + target.taskId(),
                topics.commandsRejected());
            return ExitCodes.OK;
          } catch (CommandSender.SendFailedException e) {
            throw new CliFailure(ExitCodes.FAILED, e.getMessage() + " " + broker.hint());
          }
        });
  }
}
