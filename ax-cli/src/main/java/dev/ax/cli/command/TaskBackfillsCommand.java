package dev.ax.cli.command;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.client.ApiClient;
import dev.ax.api.read.BackfillView;
import dev.ax.api.write.BackfillRequests;
import dev.ax.cli.text.Columns;
import dev.ax.common.contract.AxJson;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ax task backfills <taskId> [--json]}: the task's backfills, newest first (at most {@link
 * BackfillRequests#LIST_LIMIT}), with their range, state and progress. Runs on the main thread.
 */
@Command(name = "backfills", description = "A task's backfills, newest first, with their progress.")
final class TaskBackfillsCommand extends DatabaseSubcommand {

  private static final Columns<BackfillView> BACKFILLS =
      Columns.<BackfillView>builder()
          .left("backfill", BackfillView::backfillId)
          .left("state", BackfillView::state)
          .left("from", BackfillView::from)
          .left("to", BackfillView::to)
          .left("overlap", BackfillView::overlap)
          .right("firings", BackfillView::firings)
          .right("created", BackfillView::created)
          .right("skipped", BackfillView::skipped)
          .right("existing", BackfillView::existing)
          .right("remaining", BackfillView::remaining)
          .left("by", BackfillView::requestedBy)
          .left("ended", 60, b -> b.endedReason() == null ? "" : b.endedReason())
          .build();

  @Parameters(paramLabel = "<taskId>", description = "The task (as `ax task list` shows it).")
  private String taskId;

  @Option(names = "--json", description = "JSON, for scripts (the API's).")
  private boolean json;

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.print(api, "tasks/" + ApiMode.segment(taskId) + "/backfills", out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) throws Exception {
    List<BackfillView> backfills =
        new BackfillRequests(db.dataSource, new OperatorLog(db.dataSource), db.clock::millis)
            .ofTask(taskId).stream().map(BackfillView::of).toList();
    if (json) {
      var body = AxJson.MAPPER.createObjectNode().put("taskId", taskId);
      body.set("backfills", AxJson.MAPPER.valueToTree(backfills));
      out.println(AxJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(body));
      return ExitCodes.OK;
    }
    out.println("task " + taskId + ": " + backfills.size() + " backfill(s), newest first");
    BACKFILLS.table(backfills).print(out, "  ");
    return ExitCodes.OK;
  }
}
