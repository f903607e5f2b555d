package dev.ax.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.client.ApiClient;
import dev.ax.api.kafka.CommandSender;
import dev.ax.api.read.SecretMask;
import dev.ax.api.write.TaskCommands;
import dev.ax.api.write.TaskCommands.Target;
import dev.ax.common.contract.AxJson;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
        "Tasks: show, list, runs (with their output), next (firings ahead), and update, cancel,"
            + " delete, pause, resume or run one now (pause and resume also a whole group); backfill a"
            + " past range.",
    subcommands = {
      TaskShowCommand.class,
      TaskListCommand.class,
      TaskRunsCommand.class,
      TaskNextCommand.class,
      TaskBackfillCommand.class,
      TaskBackfillsCommand.class,
      TaskBackfillCancelCommand.class
    })
public final class TasksCommand extends DatabaseCommandGroup {

  static final String PROCESS_NAME = "ax-task";

  public TasksCommand() {
    super(
        PROCESS_NAME,
        "show, list, runs, update, cancel, delete, pause, resume, run-now, backfill, backfills,"
            + " backfill-cancel");
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
    List<String> masked = SecretMask.stillMasked(fields);
    if (!masked.isEmpty()) {
      throw new ParameterException(
          spec.commandLine(),
          "--file "
              + file
              + " still holds masked values ("
              + SecretMask.MASK
              + ") in "
              + masked
              + ": give the real ones (ax task show --reveal), or they would become the new values");
    }
    ObjectNode command = AxJson.MAPPER.createObjectNode();
    command.setAll(fields);
    return send(command, target("UPDATE", change.taskId, null), change);
  }

  private int send(String type, TaskChangeOptions change, InterruptOption interrupt)
      throws InterruptedException {
    ObjectNode command = AxJson.MAPPER.createObjectNode();
    if (interrupt.interrupt) {
      command.put("interrupt", true);
    }
    return send(command, target(type, change.taskId, null), change);
  }

  private int send(String type, TaskChangeOptions change) throws InterruptedException {
    return send(AxJson.MAPPER.createObjectNode(), target(type, change.taskId, null), change);
  }

  /**
   * The command's target: a stored id of another namespace ({@code billing~job}, as {@code ax task
   * list} shows it) goes to that namespace's topic, named as its producers name it.
   */
  private static Target target(String type, String taskId, String group) {
    String id = taskId != null ? taskId : group;
    int at = id.indexOf(Namespace.SEPARATOR);
    Optional<Namespace> namespace =
        at > 0 ? Namespace.parse(id.substring(0, at)) : Optional.empty();
    if (namespace.isEmpty() || namespace.get().isDefault()) {
      return new Target(type, taskId, group);
    }
    String local = id.substring(at + 1);
    return taskId != null
        ? new Target(type, local, null, namespace.get())
        : new Target(type, null, local, namespace.get());
  }

  private int send(String type, TaskOrGroupOptions target) throws InterruptedException {
    if ((target.taskId == null) == (target.group == null)) {
      throw new ParameterException(
          spec.commandLine(),
          "give a <taskId> or --group <group>, "
              + (target.taskId == null ? "one of them" : "not both"));
    }
    return send(
        AxJson.MAPPER.createObjectNode(), target(type, target.taskId, target.group), target);
  }

  /**
   * Sends the command through the API: {@code POST tasks/{taskId}/{action}} (an update with the
   * spec), or {@code groups/{group}/{action}}; the API names the token's holder as the operator.
   */
  private int sendOnApi(
      ApiClient api, ObjectNode command, Target target, ChangeReasonOptions change)
      throws InterruptedException {
    String action = target.type().toLowerCase(Locale.ROOT).replace('_', '-');
    ObjectNode body =
        AxJson.MAPPER
            .createObjectNode()
            .put("reason", change.reason == null ? "by ax task " + action : change.reason);
    if (change.commandId != null) {
      body.put("commandId", change.commandId);
    }
    if (target.type().equals("UPDATE")) {
      body.set("spec", command);
    } else if (command.path("interrupt").asBoolean()) {
      body.put("interrupt", true);
    }
    String path =
        target.group() != null
            ? "groups/" + ApiMode.segment(target.namespace().qualify(target.group())) + "/" + action
            : "tasks/"
                + ApiMode.segment(target.namespace().qualify(target.taskId()))
                + "/"
                + action;
    return ApiMode.post(api, path, body, spec.commandLine().getOut());
  }

  /**
   * Produces one lifecycle command ({@code fields} and the command's own), keyed by the task id
   * (the group, for a group's), records it in the operator log and says where it went.
   */
  private int send(ObjectNode command, Target target, ChangeReasonOptions change)
      throws InterruptedException {
    String problem = TaskCommands.problem(change.commandId, change.reason);
    if (problem != null) {
      throw new ParameterException(
          spec.commandLine(),
          problem.replace("the command id", "--command-id").replace("the reason", "--reason"));
    }
    Optional<ApiClient> api = ApiMode.client();
    if (api.isPresent()) {
      return sendOnApi(api.get(), command, target, change);
    }
    String operator = Operator.name();
    return CliDatabase.run(
        spec,
        workDir(),
        PROCESS_NAME,
        (db, out) -> {
          BrokerLocator.Target broker = workDir().locateBroker(db.config);
          Topics topics = new Topics(broker.topicPrefix());
          try (CommandSender sender = CommandSender.open(broker.kafka(), PROCESS_NAME)) {
            TaskCommands.Sent sent =
                new TaskCommands(sender, topics, new OperatorLog(db.dataSource), db.clock::millis)
                    .send(command, target, change.commandId, change.reason, operator);
            out.printf(
                Locale.ROOT,
                "sent %s for %s (commandId %s) to %s partition %d offset %d; `%s` shows its"
                    + " effect, %s a rejection%n",
                target.type(),
                target.describe(),
                sent.commandId(),
                sent.topic(),
                sent.partition(),
                sent.offset(),
                target.group() != null
                    ? "ax task list --group " + target.namespace().qualify(target.group())
                    : "ax task show " + target.namespace().qualify(target.taskId()),
                topics.commandsRejected(target.namespace()));
            return ExitCodes.OK;
          } catch (CommandSender.SendFailedException e) {
            throw new CliFailure(ExitCodes.FAILED, e.getMessage() + " " + broker.hint());
          }
        });
  }
}
