package dev.ax.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.client.ApiClient;
import dev.ax.api.read.SecretMask;
import dev.ax.api.read.TaskQueries;
import dev.ax.api.read.TaskView;
import dev.ax.cli.text.Columns;
import dev.ax.cli.text.Times;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskStore;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ax task show <taskId>}: the task's spec and version, state, next firing, its latest
 * instances and the lifecycle commands applied to it; with {@code --instance}, one instance's full
 * audit history. Parameter and header values are masked unless revealed. Runs on the main thread.
 */
@Command(
    name = "show",
    description = "What a task is and what became of it; --instance: one instance's history.")
final class TaskShowCommand extends DatabaseSubcommand {

  /** An instance's audit history, oldest first. */
  private static final Columns<AuditLog.Transition> HISTORY =
      Columns.<AuditLog.Transition>builder()
          .left("at", move -> Times.clock(move.atMs()))
          .right("attempt", AuditLog.Transition::attempt)
          .left("from", move -> move.from() == null ? "(created)" : move.from())
          .left("to", AuditLog.Transition::to)
          .left("by", AuditLog.Transition::actor)
          .left("why", 80, AuditLog.Transition::reason)
          .build();

  @Parameters(paramLabel = "<taskId>", description = "The task.")
  private String taskId;

  @Option(
      names = "--instances",
      defaultValue = "10",
      paramLabel = "<n>",
      description = "The latest this many instances (default: ${DEFAULT-VALUE}).")
  private int instanceCount;

  @Option(
      names = "--instance",
      paramLabel = "<instanceId>",
      description = "Show this instance of the task and its full audit history instead.")
  private String instanceId;

  @Option(names = "--json", description = "One JSON object, for scripts.")
  private boolean json;

  @Option(
      names = "--reveal",
      description = "Show the task's parameter and header values (masked by default).")
  private boolean reveal;

  @Override
  void checkOptions() {
    OptionChecks.requireInRange(spec, "--instances", instanceCount, 1, 1000);
  }

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    String task = "tasks/" + ApiMode.segment(taskId);
    return instanceId != null
        ? ApiMode.print(api, task + "/instances/" + ApiMode.segment(instanceId), out)
        : ApiMode.print(
            api,
            task
                + ApiMode.query(
                    ApiMode.params("instances", instanceCount, "reveal", reveal ? true : null)),
            out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) throws Exception {
    Optional<StoredTask> task = new TaskStore(db.dataSource).find(taskId);
    if (task.isEmpty()) {
      throw new CliFailure(ExitCodes.FAILED, "no task " + taskId);
    }
    InstanceStore instances = new InstanceStore(db.dataSource);
    if (instanceId != null) {
      return showInstance(db, instances, out);
    }
    if (json) {
      out.println(
          pretty(
              new TaskView(db.dataSource)
                  .task(taskId, instanceCount, reveal)
                  .orElseThrow(() -> new CliFailure(ExitCodes.FAILED, "no task " + taskId))));
      return ExitCodes.OK;
    }
    List<InstanceRow> latest = instances.latestOfTask(taskId, instanceCount);
    Optional<InstanceRow> next =
        latest.stream()
            .filter(r -> r.status() == InstanceStatus.SCHEDULED)
            .min(Comparator.comparingLong(InstanceRow::dueAtMs));
    List<TaskQueries.AppliedCommand> commands = new TaskQueries(db.dataSource).commands(taskId);
    JsonNode specJson = SecretMask.masked(TaskSpecJson.writeAsProduced(task.get().spec()), reveal);
    out.println(
        "task " + taskId + " (" + task.get().state() + ", version " + task.get().version() + ")");
    if (task.get().spec().name() != null) {
      out.println("  name         " + task.get().spec().name());
    }
    if (task.get().spec().description() != null) {
      out.println(
          "  description  " + task.get().spec().description().replace("\n", "\n               "));
    }
    if (task.get().spec().isSharded()) {
      out.println(
          "  sharding     each firing runs as "
              + task.get().spec().shardTotal()
              + " shards (instances <firing>#<index>of<total>)");
    }
    out.println(
        "  next firing  "
            + next.map(r -> Times.clock(r.dueAtMs()) + "  " + r.instanceId()).orElse("none"));
    out.println("  spec:");
    out.println(
        "    "
            + AxJson.MAPPER
                .writerWithDefaultPrettyPrinter()
                .writeValueAsString(specJson)
                .replace("\n", "\n    "));
    out.println("  latest " + latest.size() + " instance(s), newest first:");
    InstanceTable.of(latest).print(out, "    ");
    out.println("  commands applied:" + (commands.isEmpty() ? " none" : ""));
    for (TaskQueries.AppliedCommand command : commands) {
      out.println(
          "    "
              + Times.clock(command.appliedAtMs())
              + "  "
              + command.type()
              + "  "
              + command.commandId()
              + (command.reason() == null ? "" : "  " + command.reason()));
    }
    return ExitCodes.OK;
  }

  private int showInstance(CliDatabase db, InstanceStore instances, PrintWriter out)
      throws Exception {
    Optional<InstanceRow> row = instances.find(instanceId).filter(r -> r.taskId().equals(taskId));
    if (row.isEmpty()) {
      throw new CliFailure(ExitCodes.FAILED, "no instance " + instanceId + " of task " + taskId);
    }
    if (json) {
      out.println(
          pretty(
              new TaskView(db.dataSource)
                  .instance(taskId, instanceId)
                  .orElseThrow(
                      () ->
                          new CliFailure(
                              ExitCodes.FAILED,
                              "no instance " + instanceId + " of task " + taskId))));
      return ExitCodes.OK;
    }
    List<AuditLog.Transition> history = new AuditLog(db.dataSource).history(instanceId);
    out.println("instance " + instanceId + " (" + row.get().status() + ")");
    InstanceTable.of(List.of(row.get())).print(out, "  ");
    out.println("  history:");
    HISTORY.table(history).print(out, "    ");
    return ExitCodes.OK;
  }

  private static String pretty(JsonNode json) throws Exception {
    return AxJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(json);
  }
}
