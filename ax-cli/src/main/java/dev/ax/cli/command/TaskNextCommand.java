package dev.ax.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.client.ApiClient;
import dev.ax.api.read.NextFiringsView;
import dev.ax.cli.text.Columns;
import dev.ax.common.schedule.UpcomingFirings;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ax task next <taskId> [-n 10]}: the task's next firings with calendars, jitter and end
 * applied (a firing a calendar excludes is listed as skipped and counts toward n), and what cannot
 * be listed. On the database or, with {@code AX_API_URL}, through the API (its JSON). Runs on the
 * main thread.
 */
@Command(
    name = "next",
    description =
        "A task's next firings: slot, due time with jitter, and the calendar that skips it, if"
            + " any (skipped firings count toward n); stops at the schedule's end.")
final class TaskNextCommand extends DatabaseSubcommand {

  private static final Columns<JsonNode> FIRINGS =
      Columns.<JsonNode>builder()
          .left("slot", f -> f.get("slotAt").asText())
          .left("due", f -> f.get("dueAt").asText())
          .left(
              "",
              f -> f.get("skipped").asBoolean() ? "skipped: " + f.get("reason").asText() : "runs")
          .build();

  @Parameters(paramLabel = "<taskId>", description = "The task.")
  private String taskId;

  @Option(
      names = {"-n", "--count"},
      defaultValue = "10",
      paramLabel = "<n>",
      description = "How many firings, 1..1000 (default: ${DEFAULT-VALUE}).")
  private int count;

  @Option(names = "--json", description = "JSON, for scripts (as GET /api/v1/tasks/<id>/next).")
  private boolean json;

  @Override
  void checkOptions() {
    OptionChecks.requireInRange(spec, "-n", count, 1, UpcomingFirings.MAX_COUNT);
  }

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.print(
        api,
        "tasks/" + ApiMode.segment(taskId) + "/next" + ApiMode.query(ApiMode.params("n", count)),
        out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) {
    ObjectNode next =
        new NextFiringsView(db.dataSource, db.clock::millis)
            .next(taskId, count)
            .orElseThrow(() -> new CliFailure(ExitCodes.FAILED, "no task " + taskId));
    if (json) {
      out.println(next.toPrettyString());
      return ExitCodes.OK;
    }
    List<JsonNode> firings = new ArrayList<>();
    next.get("firings").forEach(firings::add);
    out.println(
        "task "
            + taskId
            + " ("
            + next.get("trigger").asText()
            + ", "
            + next.get("state").asText()
            + "): next "
            + firings.size()
            + " firing(s)");
    if (!firings.isEmpty()) {
      FIRINGS.table(firings).print(out, "  ");
    }
    next.get("notes").forEach(note -> out.println("  note: " + note.asText()));
    return ExitCodes.OK;
  }
}
