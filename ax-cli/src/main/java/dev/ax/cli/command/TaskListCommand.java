package dev.ax.cli.command;

import dev.ax.api.client.ApiClient;
import dev.ax.api.read.TaskListing;
import dev.ax.api.read.TaskQueries;
import dev.ax.cli.text.Columns;
import dev.ax.cli.text.Times;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.TriggerType;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code ax task list}: the tasks matching a filter, by task id, one page at a time ({@code
 * --after} the last id of the previous page); DELETED tasks only when {@code --state DELETED} asks
 * for them. Runs on the main thread.
 */
@Command(
    name = "list",
    description = "List tasks by id, with the status of each one's latest instance.")
final class TaskListCommand extends DatabaseSubcommand {

  private static final List<String> STATES =
      Arrays.stream(TaskState.values()).map(TaskState::name).toList();

  private static final Columns<TaskQueries.TaskSummary> COLUMNS =
      Columns.<TaskQueries.TaskSummary>builder()
          .left("task", TaskQueries.TaskSummary::taskId)
          .left("group", TaskQueries.TaskSummary::group)
          .left("trigger", TaskQueries.TaskSummary::triggerType)
          .left("state", TaskQueries.TaskSummary::state)
          .right("version", TaskQueries.TaskSummary::version)
          .left("last run", TaskQueries.TaskSummary::lastStatus)
          .left(
              "last due", task -> task.lastDueAtMs() == null ? "" : Times.clock(task.lastDueAtMs()))
          .build();

  @Option(names = "--group", paramLabel = "<group>", description = "Only this group's tasks.")
  private String group;

  @Option(
      names = "--state",
      paramLabel = "<state>",
      description =
          "ACTIVE, PAUSED, CANCELLED, DELETED (listed only so) or ENDED (a one-shot task whose"
              + " run is over).")
  private String state;

  @Option(
      names = "--trigger",
      paramLabel = "<type>",
      description = "ONCE, CRON, FIXED_RATE, FIXED_DELAY or DEPENDENCY.")
  private String trigger;

  @Option(
      names = "--last-status",
      paramLabel = "<status>",
      description = "Only tasks whose latest instance is in this status, e.g. DEAD.")
  private String lastStatus;

  @Option(
      names = "--text",
      paramLabel = "<part>",
      description = "Only tasks whose id contains this, literally.")
  private String text;

  @Option(
      names = "--after",
      paramLabel = "<taskId>",
      description = "The next page: tasks after this id (the last one listed).")
  private String after;

  @Mixin private ListingOptions listing;

  /** The filter the options give: set by {@link #checkOptions}. */
  private TaskQueries.Filter filter;

  @Override
  void checkOptions() {
    listing.check(spec);
    filter =
        new TaskQueries.Filter(
            group,
            oneOf("--state", state, STATES),
            oneOf("--trigger", trigger, names(TriggerType.values())),
            oneOf("--last-status", lastStatus, names(InstanceStatus.values())),
            text,
            after);
  }

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    ApiMode.checkLimit(listing.limit);
    return ApiMode.print(
        api,
        "tasks"
            + ApiMode.query(
                ApiMode.params(
                    "group", filter.group(),
                    "state", filter.state(),
                    "trigger", filter.triggerType(),
                    "lastStatus", filter.lastStatus(),
                    "text", filter.text(),
                    "after", filter.afterTaskId(),
                    "limit", listing.limit)),
        out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) throws Exception {
    if (listing.json) {
      // The API's page: tasks with their recent totals, the total, the next page.
      out.println(
          AxJson.MAPPER
              .writerWithDefaultPrettyPrinter()
              .writeValueAsString(new TaskListing(db.dataSource).page(filter, listing.limit)));
      return ExitCodes.OK;
    }
    List<TaskQueries.TaskSummary> tasks =
        new TaskQueries(db.dataSource).list(filter, listing.limit);
    listing.print(
        out,
        tasks,
        COLUMNS,
        tasks.size()
            + " task(s)"
            + (tasks.size() == listing.limit
                ? "; next page: --after " + tasks.get(tasks.size() - 1).taskId()
                : ""));
    return ExitCodes.OK;
  }

  /**
   * {@code value} upper-cased if it is one of {@code allowed}; a usage error naming them if not.
   */
  private String oneOf(String option, String value, List<String> allowed) {
    if (value == null) {
      return null;
    }
    String upper = value.toUpperCase(Locale.ROOT);
    if (!allowed.contains(upper)) {
      throw new ParameterException(
          spec.commandLine(),
          option + " must be one of " + String.join(", ", allowed) + ": " + value);
    }
    return upper;
  }

  private static List<String> names(Enum<?>[] values) {
    return Arrays.stream(values).map(Enum::name).toList();
  }
}
