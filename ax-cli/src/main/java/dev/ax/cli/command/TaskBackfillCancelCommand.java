package dev.ax.cli.command;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.client.ApiClient;
import dev.ax.api.write.BackfillRequests;
import dev.ax.common.contract.AxJson;
import dev.ax.common.store.BackfillStore;
import java.io.PrintWriter;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ax task backfill-cancel <taskId> <backfillId> [--reason R]}: stops a running backfill; the
 * firings it created run as any instance of the task. Runs on the main thread.
 */
@Command(
    name = "backfill-cancel",
    description =
        "Stop a running backfill: it creates no more firings; those it created run (`ax task"
            + " cancel` stops them with the task).")
final class TaskBackfillCancelCommand extends DatabaseSubcommand {

  @Parameters(index = "0", paramLabel = "<taskId>", description = "The task.")
  private String taskId;

  @Parameters(index = "1", paramLabel = "<backfillId>", description = "The backfill.")
  private String backfillId;

  @Option(names = "--reason", paramLabel = "<text>", description = "Why; kept in the audit log.")
  private String reason;

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.post(
        api,
        "tasks/"
            + ApiMode.segment(taskId)
            + "/backfills/"
            + ApiMode.segment(backfillId)
            + "/cancel",
        AxJson.MAPPER
            .createObjectNode()
            .put("reason", reason == null ? "by ax task backfill-cancel" : reason),
        out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) {
    BackfillRequests requests =
        new BackfillRequests(db.dataSource, new OperatorLog(db.dataSource), db.clock::millis);
    if (requests.find(backfillId).filter(b -> b.taskId().equals(taskId)).isEmpty()) {
      throw new CliFailure(ExitCodes.FAILED, "no backfill " + backfillId + " of task " + taskId);
    }
    Optional<BackfillStore.Cancel> cancel = requests.cancel(backfillId, Operator.name(), reason);
    BackfillStore.Backfill b = cancel.orElseThrow().backfill();
    if (!cancel.get().stopped()) {
      throw new CliFailure(
          ExitCodes.FAILED, "backfill " + backfillId + " is " + b.state() + " already");
    }
    out.println(
        "backfill "
            + backfillId
            + " of task "
            + taskId
            + " cancelled: "
            + b.created()
            + " of "
            + b.total()
            + " firing(s) created; those run as any instance of the task");
    return ExitCodes.OK;
  }
}
