package dev.ax.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.cli.text.TextTable;
import dev.ax.cli.text.Times;
import dev.ax.common.contract.AxJson;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.Topics;
import dev.ax.common.store.InstanceStore;
import dev.ax.deadletter.DeadLetterReplayer;
import dev.ax.deadletter.DeadLetterStore;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.producer.KafkaProducer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ax dlq}: the operator's view of dead letters: {@code list}, {@code show}, {@code replay}
 * and {@code discard}. Talks to the database named by {@code AX_JDBC_URL} (with {@code
 * AX_JDBC_USER}, {@code AX_JDBC_PASSWORD}), or else to the embedded one of a running {@code ax up}
 * (from its {@code up.env}); {@code replay} also needs the broker, found the same way as by {@code
 * ax submit}. Each subcommand runs on the main thread.
 */
@Command(
    name = "dlq",
    mixinStandardHelpOptions = true,
    description = "Dead letters: list, show, replay, discard.",
    subcommands = {
      DlqCommand.ListLetters.class,
      DlqCommand.ShowLetter.class,
      DlqCommand.ReplayLetters.class,
      DlqCommand.DiscardLetter.class
    })
public final class DlqCommand implements Runnable {

  private static final String PROCESS_NAME = "ax-dlq";

  @Spec private CommandSpec spec;

  @Option(
      names = "--work-dir",
      defaultValue = ".ax",
      paramLabel = "<dir>",
      scope = picocli.CommandLine.ScopeType.INHERIT,
      description = "Where a running `ax up` wrote up.env (default: ${DEFAULT-VALUE}).")
  Path workDir;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "Missing command: give one of list, show, replay, discard");
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List dead letters, newest first.")
  static final class ListLetters implements Callable<Integer> {
    @Spec CommandSpec spec;

    @picocli.CommandLine.ParentCommand DlqCommand parent;

    @Option(names = "--task", paramLabel = "<taskId>", description = "Only this task's letters.")
    String taskId;

    @Option(names = "--group", paramLabel = "<group>", description = "Only this task group's.")
    String group;

    @Option(
        names = "--since",
        converter = DurationConverter.class,
        paramLabel = "<duration>",
        description = "Only letters stored within this long, e.g. 1h.")
    Duration since;

    @Option(
        names = "--from",
        paramLabel = "<instant>",
        description = "Only letters stored at or after this ISO-8601 instant.")
    String from;

    @Option(
        names = "--to",
        paramLabel = "<instant>",
        description = "Only letters stored before this ISO-8601 instant.")
    String to;

    @Option(
        names = "--state",
        paramLabel = "<state>",
        description = "OPEN, REPLAYED or DISCARDED (default: all).")
    String state;

    @Option(
        names = "--limit",
        defaultValue = "50",
        paramLabel = "<n>",
        description = "At most this many (default: ${DEFAULT-VALUE}).")
    int limit;

    @Override
    public Integer call() {
      LogLevels.quiet();
      DeadLetterStore.Filter filter = filter(spec, taskId, group, since, from, to, state);
      if (limit < 1 || limit > 10_000) {
        throw new ParameterException(spec.commandLine(), "--limit must be in 1..10000: " + limit);
      }
      PrintWriter out = spec.commandLine().getOut();
      try (CliDatabase db = new CliDatabase(parent.workDir, PROCESS_NAME)) {
        Long sinceFromMs = since == null ? null : db.clock.millis() - since.toMillis();
        if (sinceFromMs != null) {
          filter =
              new DeadLetterStore.Filter(
                  filter.taskId(), filter.group(), sinceFromMs, filter.toMs(), filter.state());
        }
        List<DeadLetterStore.DeadLetter> letters =
            new DeadLetterStore(db.dataSource).list(filter, limit);
        TextTable table =
            new TextTable(
                TextTable.Column.right("id"),
                TextTable.Column.left("stored"),
                TextTable.Column.left("state"),
                TextTable.Column.left("task"),
                TextTable.Column.left("group"),
                TextTable.Column.left("instance"),
                TextTable.Column.right("attempts"),
                TextTable.Column.left("last error").maxWidth(60));
        for (DeadLetterStore.DeadLetter letter : letters) {
          table.row(
              letter.id(),
              Times.clock(letter.createdAtMs()),
              letter.state(),
              letter.taskId(),
              letter.group(),
              letter.instanceId(),
              attemptCount(letter),
              letter.lastError());
        }
        table.print(out, "");
        out.println(letters.size() + " dead letter(s)");
        out.flush();
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "Everything stored for one dead letter.")
  static final class ShowLetter implements Callable<Integer> {
    @Spec CommandSpec spec;

    @picocli.CommandLine.ParentCommand DlqCommand parent;

    @Parameters(paramLabel = "<id>", description = "The dead letter's id (from `ax dlq list`).")
    long id;

    @Option(
        names = "--reveal",
        description =
            "Show the task's parameter and header values; by default they are masked, since they"
                + " may hold secrets.")
    boolean reveal;

    @Override
    public Integer call() throws Exception {
      LogLevels.quiet();
      PrintWriter out = spec.commandLine().getOut();
      try (CliDatabase db = new CliDatabase(parent.workDir, PROCESS_NAME)) {
        DeadLetterStore.DeadLetter letter =
            new DeadLetterStore(db.dataSource)
                .find(id)
                .orElseThrow(() -> new CliFailure(ExitCodes.FAILED, "no dead letter " + id));
        out.println("dead letter " + letter.id() + " (" + letter.state() + ")");
        out.println("  instance    " + letter.instanceId());
        out.println("  task        " + letter.taskId() + "   group " + letter.group());
        out.println("  stored      " + Instant.ofEpochMilli(letter.createdAtMs()));
        out.println("  updated     " + Instant.ofEpochMilli(letter.updatedAtMs()));
        out.println("  reason      " + letter.stateReason());
        out.println("  last error  " + letter.lastError());
        out.println("  attempts:");
        TextTable attempts =
            new TextTable(
                TextTable.Column.right("#"),
                TextTable.Column.left("dispatcher"),
                TextTable.Column.left("started"),
                TextTable.Column.right("ms"),
                TextTable.Column.left("outcome"),
                TextTable.Column.left("error").maxWidth(80));
        for (JsonNode attempt : AxJson.MAPPER.readTree(letter.attemptsJson())) {
          attempts.row(
              attempt.path("attempt").asInt(),
              attempt.path("dispatcher").asText(),
              Instant.ofEpochMilli(attempt.path("startedAtMs").asLong()),
              attempt.path("durationMs").isNull() ? "" : attempt.path("durationMs").asLong(),
              attempt.path("outcome").isNull() ? "(never ended)" : attempt.path("outcome").asText(),
              attempt.path("error").isNull() ? "" : attempt.path("error").asText());
        }
        attempts.print(out, "    ");
        out.println("  task as it was:");
        out.println(
            "    "
                + AxJson.MAPPER
                    .writerWithDefaultPrettyPrinter()
                    .writeValueAsString(
                        masked(AxJson.MAPPER.readTree(letter.taskSnapshot()), reveal))
                    .replace("\n", "\n    "));
        out.println("  last stack trace:");
        out.println(
            letter.lastStack() == null
                ? "    (none: the last attempt did not throw)"
                : "    " + letter.lastStack().strip().replace("\n", "\n    "));
        out.flush();
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "replay",
      mixinStandardHelpOptions = true,
      description = {
        "Run dead letters again with a fresh retry budget: the ids given, or every OPEN letter"
            + " matching --task/--group. Rate-limited; recorded in the audit log. A letter"
            + " replayed before is not run again."
      })
  static final class ReplayLetters implements Callable<Integer> {
    @Spec CommandSpec spec;

    @picocli.CommandLine.ParentCommand DlqCommand parent;

    @Parameters(arity = "0..*", paramLabel = "<id>", description = "Dead letter ids.")
    List<Long> ids = new ArrayList<>();

    @Option(
        names = "--task",
        paramLabel = "<taskId>",
        description = "Every open letter of this task.")
    String taskId;

    @Option(
        names = "--group",
        paramLabel = "<group>",
        description = "Every open letter of this group.")
    String group;

    @Option(
        names = "--rate",
        defaultValue = "10",
        paramLabel = "<per-second>",
        description = "At most this many replays a second (default: ${DEFAULT-VALUE}).")
    int ratePerSecond;

    @Option(
        names = "--reason",
        defaultValue = "replayed by an operator",
        paramLabel = "<text>",
        description = "Why; kept with the letter and in the audit log.")
    String reason;

    @Override
    public Integer call() throws Exception {
      LogLevels.quiet();
      if (ids.isEmpty() && taskId == null && group == null) {
        throw new ParameterException(
            spec.commandLine(), "give dead letter ids, or --task and/or --group to replay a set");
      }
      if (!ids.isEmpty() && (taskId != null || group != null)) {
        throw new ParameterException(spec.commandLine(), "give ids or a filter, not both");
      }
      if (ratePerSecond < 1 || ratePerSecond > 1000) {
        throw new ParameterException(
            spec.commandLine(), "--rate must be in 1..1000: " + ratePerSecond);
      }
      PrintWriter out = spec.commandLine().getOut();
      try (CliDatabase db = new CliDatabase(parent.workDir, PROCESS_NAME)) {
        BrokerLocator.Target broker = BrokerLocator.locate(db.config, parent.workDir);
        DeadLetterStore letters = new DeadLetterStore(db.dataSource);
        List<Long> targets = new ArrayList<>(ids);
        if (targets.isEmpty()) {
          letters
              .list(new DeadLetterStore.Filter(taskId, group, null, null, "OPEN"), 100_000)
              .forEach(letter -> targets.add(letter.id()));
        }
        int replayed = 0;
        int problems = 0;
        long pauseMs = 1000L / ratePerSecond;
        try (KafkaProducer<String, byte[]> producer =
            KafkaClients.producer(broker.bootstrapServers(), PROCESS_NAME)) {
          DeadLetterReplayer replayer =
              new DeadLetterReplayer(
                  letters,
                  new InstanceStore(db.dataSource),
                  producer,
                  new Topics(broker.topicPrefix()));
          for (long id : targets) {
            DeadLetterStore.ReplayResult result =
                replayer.replay(id, "ax dlq (" + user() + ")", reason, db.clock.millis());
            out.println("dead letter " + id + ": " + describe(result));
            out.flush();
            if (result == DeadLetterStore.ReplayResult.REPLAYED) {
              replayed++;
              Thread.sleep(pauseMs); // the rate limit, not synchronisation
            } else {
              problems++;
            }
          }
        }
        out.println(replayed + " replayed, " + problems + " not");
        out.flush();
        return problems == 0 ? ExitCodes.OK : ExitCodes.FAILED;
      }
    }

    private static String describe(DeadLetterStore.ReplayResult result) {
      return switch (result) {
        case REPLAYED -> "replayed";
        case NOT_FOUND -> "no such dead letter";
        case NOT_OPEN -> "not open (replayed or discarded before): nothing runs";
        case INSTANCE_NOT_DEAD -> "its instance is no longer DEAD: nothing runs";
      };
    }
  }

  @Command(
      name = "discard",
      mixinStandardHelpOptions = true,
      description = "Close an open dead letter without running it, with a reason.")
  static final class DiscardLetter implements Callable<Integer> {
    @Spec CommandSpec spec;

    @picocli.CommandLine.ParentCommand DlqCommand parent;

    @Parameters(paramLabel = "<id>", description = "The dead letter's id.")
    long id;

    @Option(names = "--reason", required = true, paramLabel = "<text>", description = "Why.")
    String reason;

    @Override
    public Integer call() {
      LogLevels.quiet();
      if (reason.isBlank()) {
        throw new ParameterException(spec.commandLine(), "--reason must not be blank");
      }
      PrintWriter out = spec.commandLine().getOut();
      try (CliDatabase db = new CliDatabase(parent.workDir, PROCESS_NAME)) {
        DeadLetterStore letters = new DeadLetterStore(db.dataSource);
        if (letters.find(id).isEmpty()) {
          throw new CliFailure(ExitCodes.FAILED, "no dead letter " + id);
        }
        if (!letters.discard(id, reason + " (by " + user() + ")", db.clock.millis())) {
          throw new CliFailure(
              ExitCodes.FAILED,
              "dead letter " + id + " is not open (replayed or discarded before)");
        }
        out.println("dead letter " + id + ": discarded");
        out.flush();
      }
      return ExitCodes.OK;
    }
  }

  /** The task snapshot with the values of params and executor headers masked, unless revealed. */
  static JsonNode masked(JsonNode snapshot, boolean reveal) {
    if (reveal) {
      return snapshot;
    }
    JsonNode copy = snapshot.deepCopy();
    for (JsonNode holder : List.of(copy.path("params"), copy.path("executor").path("headers"))) {
      if (holder instanceof com.fasterxml.jackson.databind.node.ObjectNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        names.forEach(name -> object.put(name, "****"));
      }
    }
    return copy;
  }

  private static String user() {
    return System.getProperty("user.name", "unknown");
  }

  private static int attemptCount(DeadLetterStore.DeadLetter letter) {
    try {
      return AxJson.MAPPER.readTree(letter.attemptsJson()).size();
    } catch (Exception e) {
      return -1;
    }
  }

  /** The filter from the options; a malformed one is a usage error naming the option. */
  static DeadLetterStore.Filter filter(
      CommandSpec spec,
      String taskId,
      String group,
      Duration since,
      String from,
      String to,
      String state) {
    if (since != null && from != null) {
      throw new ParameterException(spec.commandLine(), "give --since or --from, not both");
    }
    Long fromMs = from == null ? null : instant(spec, "--from", from);
    Long toMs = to == null ? null : instant(spec, "--to", to);
    if (fromMs != null && toMs != null && toMs <= fromMs) {
      throw new ParameterException(spec.commandLine(), "--to must be after --from");
    }
    String upperState = state == null ? null : state.toUpperCase(Locale.ROOT);
    if (upperState != null && !List.of("OPEN", "REPLAYED", "DISCARDED").contains(upperState)) {
      throw new ParameterException(
          spec.commandLine(), "--state must be OPEN, REPLAYED or DISCARDED: " + state);
    }
    return new DeadLetterStore.Filter(taskId, group, fromMs, toMs, upperState);
  }

  private static long instant(CommandSpec spec, String option, String text) {
    try {
      return Instant.parse(text).toEpochMilli();
    } catch (DateTimeParseException e) {
      throw new ParameterException(
          spec.commandLine(),
          option + " must be an ISO-8601 instant such as 2026-11-30T08:00:00Z: " + text);
    }
  }
}
