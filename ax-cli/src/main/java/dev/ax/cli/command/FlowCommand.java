package dev.ax.cli.command;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import java.io.PrintWriter;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code ax flow <flowRunId>}: one flow run: which tasks ran, in which order, with which outcome,
 * and which dependency tasks still wait, on what. Runs on the main thread.
 */
@Command(
    name = "flow",
    description = {
      "Show a flow run: every instance in it (oldest first) with its outcome, and the dependency"
          + " tasks still waiting, with the upstreams they wait for.",
      "A flow run's id is the id of the instance that started it (e.g. sync@1767225600000);"
          + " completion events carry it as flowRunId."
    })
public final class FlowCommand extends WorkDirCommand {

  @Parameters(paramLabel = "<flowRunId>", description = "The flow run to show.")
  private String flowRunId;

  @Override
  public Integer call() {
    return CliDatabase.run(spec, workDir, "ax-flow", this::printFlowRun);
  }

  /** Prints the flow run's instances, then the dependency tasks still waiting. */
  private int printFlowRun(CliDatabase db, PrintWriter out) {
    List<InstanceRow> rows = new InstanceStore(db.dataSource).findByFlowRun(flowRunId);
    if (rows.isEmpty()) {
      throw new CliFailure(ExitCodes.FAILED, "no flow run " + flowRunId);
    }
    out.println("flow run " + flowRunId);
    Set<String> succeeded = new LinkedHashSet<>();
    Set<String> present = new LinkedHashSet<>();
    for (InstanceRow row : rows) {
      present.add(row.taskId());
      if (row.status() == InstanceStatus.SUCCESS) {
        succeeded.add(row.taskId());
      }
    }
    InstanceTable.withTask(rows).print(out, "  ");
    Map<String, List<TaskStore.Downstream>> dependents =
        new TaskStore(db.dataSource).dependentsOf(present);
    Set<String> reported = new LinkedHashSet<>();
    for (List<TaskStore.Downstream> downstreams : dependents.values()) {
      for (TaskStore.Downstream downstream : downstreams) {
        if (present.contains(downstream.taskId()) || !reported.add(downstream.taskId())) {
          continue;
        }
        List<String> missing =
            downstream.upstreams().stream().filter(u -> !succeeded.contains(u)).toList();
        out.println("  waiting: " + downstream.taskId() + " on " + String.join(", ", missing));
      }
    }
    if (reported.isEmpty()) {
      out.println("  waiting: nothing");
    }
    return ExitCodes.OK;
  }
}
