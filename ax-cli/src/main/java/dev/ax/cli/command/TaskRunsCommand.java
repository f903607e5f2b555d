package dev.ax.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.client.ApiClient;
import dev.ax.api.read.RunsView;
import dev.ax.cli.text.Columns;
import dev.ax.cli.text.Times;
import dev.ax.common.contract.AxJson;
import dev.ax.common.store.TaskRun;
import dev.ax.common.store.TaskRuns;
import dev.ax.common.store.TaskStore;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ax task runs <taskId> [--limit N] [--output]}: the task's latest runs (attempts), newest
 * first, with status, start, finish, duration and the first line of what each said; {@code
 * --output} prints each run's whole stored output under it; {@code --instance <id> --attempt <n>}
 * one run with its output. On the database or, with {@code AX_API_URL}, through the API (its JSON).
 * Runs on the main thread.
 */
@Command(
    name = "runs",
    description =
        "A task's latest runs with their output (HTTP status, chosen headers and body; a script's"
            + " stdout and stderr), newest first.")
final class TaskRunsCommand extends DatabaseSubcommand {

  /** Characters of a run's output in its row: its first line, cut. */
  private static final int EXCERPT_CHARS = 60;

  private static final Columns<TaskRun> RUNS =
      Columns.<TaskRun>builder()
          .left("instance", TaskRun::instanceId)
          .right("attempt", TaskRun::attempt)
          .left("status", TaskRun::status)
          .left("started", run -> clockOrBlank(run.startedAtMs()))
          .left("finished", run -> clockOrBlank(run.finishedAtMs()))
          .right("duration", run -> run.durationMs() == null ? "" : run.durationMs() + " ms")
          .left("output", EXCERPT_CHARS, TaskRunsCommand::excerpt)
          .build();

  @Parameters(paramLabel = "<taskId>", description = "The task.")
  private String taskId;

  @Option(
      names = "--limit",
      defaultValue = "20",
      paramLabel = "<n>",
      description = "The latest this many runs (default: ${DEFAULT-VALUE}).")
  private int limit;

  @Option(names = "--output", description = "Print each run's whole stored output under it.")
  private boolean output;

  @Option(
      names = "--instance",
      paramLabel = "<instanceId>",
      description = "Show one run of this instance (with --attempt) and its whole output.")
  private String instanceId;

  @Option(
      names = "--attempt",
      defaultValue = "1",
      paramLabel = "<n>",
      description = "The attempt of --instance (default: ${DEFAULT-VALUE}).")
  private int attempt;

  @Option(names = "--json", description = "JSON, for scripts.")
  private boolean json;

  @Override
  void checkOptions() {
    OptionChecks.requireInRange(spec, "--limit", limit, 1, TaskRuns.MAX_LIMIT);
    OptionChecks.requireInRange(spec, "--attempt", attempt, 1, Integer.MAX_VALUE);
  }

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    String runs = "tasks/" + ApiMode.segment(taskId) + "/runs";
    return instanceId != null
        ? ApiMode.print(api, runs + "/" + ApiMode.segment(instanceId) + "/" + attempt, out)
        : ApiMode.print(api, runs + ApiMode.query(ApiMode.params("limit", limit)), out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) throws Exception {
    if (new TaskStore(db.dataSource).find(taskId).isEmpty()) {
      throw new CliFailure(ExitCodes.FAILED, "no task " + taskId);
    }
    if (instanceId != null) {
      Optional<TaskRun> run = new TaskRuns(db.dataSource).run(taskId, instanceId, attempt);
      if (run.isEmpty()) {
        throw new CliFailure(
            ExitCodes.FAILED, "no run " + instanceId + " #" + attempt + " of task " + taskId);
      }
      if (json) {
        out.println(pretty(RunsView.json(run.get())));
        return ExitCodes.OK;
      }
      RUNS.table(List.of(run.get())).print(out, "");
      printOutput(run.get(), out);
      return ExitCodes.OK;
    }
    if (json) {
      out.println(pretty(new RunsView(db.dataSource).runs(taskId, limit).orElseThrow()));
      return ExitCodes.OK;
    }
    List<TaskRun> runs = new TaskRuns(db.dataSource).latest(taskId, limit);
    out.println("task " + taskId + ": latest " + runs.size() + " run(s), newest first");
    if (!output) {
      RUNS.table(runs).print(out, "  ");
      return ExitCodes.OK;
    }
    for (TaskRun run : runs) {
      RUNS.table(List.of(run)).print(out, "  ");
      printOutput(run, out);
    }
    return ExitCodes.OK;
  }

  /** The run's whole stored output, indented, or what it said instead. */
  private static void printOutput(TaskRun run, PrintWriter out) {
    String text = run.output() != null ? printable(run.output()) : "(no output stored)";
    out.println("    | " + text.replace("\n", "\n    | "));
  }

  /** The run's output on one line (the column cuts it), else its error. */
  static String excerpt(TaskRun run) {
    String text = run.output() != null ? run.output() : run.error();
    return text == null ? "" : printable(text).replaceAll("\\s+", " ").trim();
  }

  /**
   * {@code text} with control characters other than newline and tab shown as U+FFFD: a script's
   * output must not move the cursor or retitle the operator's terminal.
   */
  static String printable(String text) {
    StringBuilder shown = new StringBuilder(text.length());
    text.codePoints()
        .forEach(
            c ->
                shown.appendCodePoint(
                    c == '\n' || c == '\t' || !Character.isISOControl(c) ? c : 0xFFFD));
    return shown.toString();
  }

  private static String clockOrBlank(Long epochMs) {
    return epochMs == null ? "" : Times.clock(epochMs);
  }

  private static String pretty(JsonNode node) throws Exception {
    return AxJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(node);
  }
}
