package dev.ax.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ax.api.client.ApiClient;
import dev.ax.api.read.DeadLetterView;
import dev.ax.cli.text.Columns;
import dev.ax.cli.text.Times;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.DeadLetterState;
import dev.ax.deadletter.DeadLetterStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code ax dlq list}: the dead letters matching a filter, newest first, as a table. Runs on the
 * main thread.
 */
@Command(name = "list", description = "List dead letters, newest first.")
final class DlqListCommand extends DatabaseSubcommand {

  private static final Columns<DeadLetterStore.DeadLetter> COLUMNS =
      Columns.<DeadLetterStore.DeadLetter>builder()
          .right("id", DeadLetterStore.DeadLetter::id)
          .left("stored", letter -> Times.clock(letter.createdAtMs()))
          .left("state", letter -> letter.state().name())
          .left("task", DeadLetterStore.DeadLetter::taskId)
          .left("group", DeadLetterStore.DeadLetter::group)
          .left("instance", DeadLetterStore.DeadLetter::instanceId)
          .right("attempts", DlqListCommand::attemptCount)
          .left("last error", 60, DeadLetterStore.DeadLetter::lastError)
          .build();

  @Option(names = "--task", paramLabel = "<taskId>", description = "Only this task's letters.")
  private String taskId;

  @Option(names = "--group", paramLabel = "<group>", description = "Only this task group's.")
  private String group;

  @Option(
      names = "--since",
      paramLabel = "<duration>",
      description = "Only letters stored within this long, e.g. 1h.")
  private Duration since;

  @Option(
      names = "--from",
      paramLabel = "<instant>",
      description = "Only letters stored at or after this ISO-8601 instant.")
  private String from;

  @Option(
      names = "--to",
      paramLabel = "<instant>",
      description = "Only letters stored before this ISO-8601 instant.")
  private String to;

  @Option(
      names = "--state",
      paramLabel = "<state>",
      description = "OPEN, REPLAYED or DISCARDED (default: all).")
  private String state;

  @Option(
      names = "--limit",
      defaultValue = "50",
      paramLabel = "<n>",
      description = "At most this many (default: ${DEFAULT-VALUE}).")
  private int limit;

  @Option(names = "--json", description = "A JSON array (as GET /api/v1/deadletters).")
  private boolean json;

  /** The filter the options give (all but --since): set by {@link #checkOptions}. */
  private DeadLetterStore.Filter filter;

  @Override
  void checkOptions() {
    filter = optionsFilter();
    OptionChecks.requireInRange(spec, "--limit", limit, 1, 10_000);
  }

  /** The API's letters (newest first); --since, --from and --to are the database's only. */
  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    if (since != null || from != null || to != null) {
      throw ApiMode.unsupported("ax dlq list --since/--from/--to");
    }
    ApiMode.checkLimit(limit);
    return ApiMode.print(
        api,
        "deadletters"
            + ApiMode.query(
                ApiMode.params(
                    "task",
                    filter.taskId(),
                    "group",
                    filter.group(),
                    "state",
                    filter.state() == null ? null : filter.state().name(),
                    "limit",
                    limit)),
        out);
  }

  /** Prints the letters matching the filter and --since, newest first. */
  @Override
  int run(CliDatabase db, PrintWriter out) throws Exception {
    List<DeadLetterStore.DeadLetter> letters =
        new DeadLetterStore(db.dataSource).list(withSince(filter, db), limit);
    if (json) {
      ArrayNode rows = AxJson.MAPPER.createArrayNode();
      letters.forEach(letter -> rows.add(DeadLetterView.summary(letter)));
      out.println(AxJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(rows));
      return ExitCodes.OK;
    }
    COLUMNS.table(letters).print(out, "");
    out.println(letters.size() + " dead letter(s)");
    return ExitCodes.OK;
  }

  private static int attemptCount(DeadLetterStore.DeadLetter letter) {
    try {
      return AxJson.MAPPER.readTree(letter.attemptsJson()).size();
    } catch (Exception e) {
      return -1;
    }
  }

  /** {@code filter} with --since, if given, as a start measured back from the database's time. */
  private DeadLetterStore.Filter withSince(DeadLetterStore.Filter filter, CliDatabase db) {
    if (since == null) {
      return filter;
    }
    long sinceFromMs = db.clock.millis() - since.toMillis();
    return new DeadLetterStore.Filter(
        filter.taskId(), filter.group(), sinceFromMs, filter.toMs(), filter.state());
  }

  /** The filter from the options; a malformed one is a usage error naming the option. */
  private DeadLetterStore.Filter optionsFilter() {
    if (since != null && from != null) {
      throw new ParameterException(spec.commandLine(), "give --since or --from, not both");
    }
    Long fromMs = from == null ? null : instant("--from", from);
    Long toMs = to == null ? null : instant("--to", to);
    if (fromMs != null && toMs != null && toMs <= fromMs) {
      throw new ParameterException(spec.commandLine(), "--to must be after --from");
    }
    return new DeadLetterStore.Filter(taskId, group, fromMs, toMs, stateOption());
  }

  /** --state as a state, or null when not given; another value is a usage error. */
  private DeadLetterState stateOption() {
    if (state == null) {
      return null;
    }
    String upperState = state.toUpperCase(Locale.ROOT);
    for (DeadLetterState known : DeadLetterState.values()) {
      if (known.name().equals(upperState)) {
        return known;
      }
    }
    throw new ParameterException(
        spec.commandLine(), "--state must be OPEN, REPLAYED or DISCARDED: " + state);
  }

  private long instant(String option, String text) {
    try {
      return Instant.parse(text).toEpochMilli();
    } catch (DateTimeParseException e) {
      throw new ParameterException(
          spec.commandLine(),
          option + " must be an ISO-8601 instant such as 2026-11-30T08:00:00Z: " + text);
    }
  }
}
