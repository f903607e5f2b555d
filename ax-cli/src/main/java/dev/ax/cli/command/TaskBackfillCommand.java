package dev.ax.cli.command;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.client.ApiClient;
import dev.ax.api.write.BackfillRequests;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.store.BackfillStore;
import dev.ax.common.store.BackfillStore.Backfill;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ax task backfill <taskId> --from T1 --to T2 [--overlap P] [--reason R]}: the firings a
 * CRON or FIXED_RATE task's schedule would have made in a past range, created by the ticker leader
 * at its pace ({@code AX_BACKFILL_RATE}). Checked and stored at once through {@link
 * BackfillRequests} (as the API's {@code POST tasks/{taskId}/backfills}): prints the backfill's id
 * and number of firings, or the refusal (exit 1). Runs on the main thread.
 */
@Command(
    name = "backfill",
    description = {
      "Create the firings a CRON or FIXED_RATE task's schedule would have made between --from and"
          + " --to (both inclusive, ISO-8601), paced by the ticker (AX_BACKFILL_RATE); each firing"
          + " is <taskId>@backfill:<slotMillis>, so a backfill run twice creates nothing twice, and"
          + " a slot the schedule fired itself is passed over.",
      "`ax task backfills <taskId>` shows its progress; `ax task backfill-cancel` stops it."
    })
final class TaskBackfillCommand extends DatabaseSubcommand {

  @Parameters(paramLabel = "<taskId>", description = "The task (as `ax task list` shows it).")
  private String taskId;

  @Option(
      names = "--from",
      required = true,
      paramLabel = "<instant>",
      description = "The range's first instant, e.g. 2026-03-01T00:00:00Z.")
  private Instant from;

  @Option(
      names = "--to",
      required = true,
      paramLabel = "<instant>",
      description = "The range's last instant (a future one is clamped to now).")
  private Instant to;

  @Option(
      names = "--overlap",
      paramLabel = "<policy>",
      description =
          "What a firing does while a run of the task is in flight: BUFFER_ALL or BUFFER_ONE (one"
              + " after another), SKIP (recorded SKIPPED), ALLOW_ALL (paced only). Default:"
              + " ALLOW_ALL if the task allows overlap, else BUFFER_ALL.")
  private OverlapPolicy overlap;

  @Option(names = "--reason", paramLabel = "<text>", description = "Why; kept in the audit log.")
  private String reason;

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    var body =
        AxJson.MAPPER
            .createObjectNode()
            .put("from", from.toString())
            .put("to", to.toString())
            .put("reason", reason == null ? "by ax task backfill" : reason);
    if (overlap != null) {
      body.put("overlap", overlap.name());
    }
    return ApiMode.post(api, "tasks/" + ApiMode.segment(taskId) + "/backfills", body, out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) {
    BackfillStore.Requested requested =
        new BackfillRequests(db.dataSource, new OperatorLog(db.dataSource), db.clock::millis)
            .request(taskId, from, to, overlap, Operator.name(), reason);
    if (requested instanceof BackfillStore.Requested.Refused refused) {
      throw new CliFailure(ExitCodes.FAILED, "backfill refused: " + refused.reason());
    }
    Backfill b = ((BackfillStore.Requested.Accepted) requested).backfill();
    out.printf(
        Locale.ROOT,
        "backfill %s of task %s: %d firing(s) from %s to %s, overlap %s; `ax task backfills %s`"
            + " shows its progress%n",
        b.backfillId(),
        b.taskId(),
        b.total(),
        Instant.ofEpochMilli(b.fromMs()),
        Instant.ofEpochMilli(b.toMs()),
        b.overlap(),
        b.taskId());
    return ExitCodes.OK;
  }
}
