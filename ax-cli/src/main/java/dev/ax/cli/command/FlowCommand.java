package dev.ax.cli.command;

import dev.ax.api.client.ApiClient;
import dev.ax.api.read.FlowView;
import dev.ax.common.contract.AxJson;
import java.io.PrintWriter;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
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

  @Option(names = "--json", description = "One JSON object (as GET /api/v1/flows/<flowRunId>).")
  private boolean json;

  @Override
  public Integer call() throws Exception {
    Optional<ApiClient> api = ApiMode.client();
    if (api.isPresent()) {
      return ApiMode.print(
          api.get(), "flows/" + ApiMode.segment(flowRunId), spec.commandLine().getOut());
    }
    return CliDatabase.run(spec, workDir, "ax-flow", this::printFlowRun);
  }

  /** Prints the flow run's instances, then the dependency tasks still waiting. */
  private int printFlowRun(CliDatabase db, PrintWriter out) throws Exception {
    FlowView.FlowRun run =
        new FlowView(db.dataSource)
            .run(flowRunId)
            .orElseThrow(() -> new CliFailure(ExitCodes.FAILED, "no flow run " + flowRunId));
    if (json) {
      out.println(
          AxJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(FlowView.json(run)));
      return ExitCodes.OK;
    }
    out.println("flow run " + flowRunId);
    InstanceTable.withTask(run.instances()).print(out, "  ");
    for (FlowView.Node waiting : run.waiting()) {
      if (!waiting.waitsOn().isEmpty()) {
        out.println(
            "  waiting: " + waiting.taskId() + " on " + String.join(", ", waiting.waitsOn()));
      }
    }
    if (run.waiting().stream().allMatch(n -> n.waitsOn().isEmpty())) {
      out.println("  waiting: nothing");
    }
    return ExitCodes.OK;
  }
}
