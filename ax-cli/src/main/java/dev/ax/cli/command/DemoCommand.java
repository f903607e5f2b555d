package dev.ax.cli.command;

import dev.ax.api.kafka.CommandSender;
import dev.ax.cli.demo.DemoEndpoints;
import dev.ax.cli.demo.DemoOutcomes;
import dev.ax.cli.demo.DemoPlan;
import dev.ax.cli.demo.DemoReport;
import dev.ax.cli.kafka.TopicTail;
import dev.ax.cli.local.Infrastructure;
import dev.ax.cli.local.Pipeline;
import dev.ax.cli.local.StopSignal;
import dev.ax.cli.local.TempDirs;
import dev.ax.cli.text.EventLines;
import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.config.CommonKeys;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.kafka.Topics;
import dev.ax.dispatcher.DispatcherKeys;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ax demo}: starts everything embedded in a fresh temporary directory (whatever the
 * environment says about servers), sends the {@link DemoPlan} as plain JSON, prints each completion
 * and rejection as it arrives, then a summary, stops everything and deletes the directory. Exits 0
 * when every command ended as planned, 1 otherwise. Runs on the main thread.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Start AX with embedded Kafka and MariaDB in a temporary directory, run a small mix of"
          + " tasks (in-process, HTTP, a failure, a timeout, a duplicate, two invalid commands),"
          + " show how each ended, and stop.",
      "Exit code 0 when everything ended as planned, 1 otherwise."
    })
public final class DemoCommand implements Callable<Integer> {

  private static final String PROCESS_NAME = "ax-demo";
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);

  /** After the last expected outcome, how long to keep listening for a duplicate run. */
  private static final Duration SETTLE = Duration.ofSeconds(1);

  @Spec private CommandSpec spec;

  @Option(
      names = "--deadline",
      defaultValue = "60s",
      paramLabel = "<duration>",
      description = "Give up waiting for outcomes after this long (default: ${DEFAULT-VALUE}).")
  private Duration deadline;

  @Mixin private VerboseOption verbose;

  @Override
  @SuppressWarnings("try") // resources held open for the command's lifetime, closed in order
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    verbose.applyToLogs();
    StopSignal stop = StopSignal.install(System.err);
    Path dir = TempDirs.create("ax-demo-");
    List<String> differences;
    try {
      out.println("Starting embedded Kafka and MariaDB in " + dir + " ...");
      out.flush();
      try (Infrastructure servers = Infrastructure.embedded(dir);
          DemoEndpoints http = DemoEndpoints.start()) {
        AxConfig config = AxConfig.fromEnvironment(overrides(servers, http));
        Topics topics = new Topics(CommonConfig.from(config).topicPrefix());
        try (Pipeline pipeline = Pipeline.start(config, PROCESS_NAME);
            TopicTail events =
                TopicTail.open(
                    servers.kafka(),
                    List.of(topics.completed(), topics.commandsRejected()),
                    TopicTail.From.BEGINNING);
            CommandSender sender = CommandSender.open(servers.kafka(), PROCESS_NAME)) {
          out.println(
              "AX is running (Kafka "
                  + servers.bootstrapServers()
                  + ", database "
                  + servers.displayJdbcUrl()
                  + "); demo HTTP endpoints at "
                  + http.baseUri());
          DemoPlan plan = DemoPlan.standard(http.baseUri());
          DemoOutcomes outcomes = new DemoOutcomes(plan);
          if (!stop.isRaised()) {
            send(plan, sender, topics, out);
            boolean complete = watch(events, topics, outcomes, stop, out);
            if (!complete && !stop.isRaised()) {
              out.println(
                  "Deadline of " + deadline.toSeconds() + " s passed; not everything arrived.");
            }
            DemoReport.print(out, plan, outcomes);
          }
          differences = outcomes.differences();
          if (stop.isRaised()) {
            out.println();
            out.println("Demo interrupted by " + stop.signalName() + ".");
          } else {
            DemoReport.printVerdict(out, plan, differences);
          }
          out.println();
          out.println("Stopping AX...");
          out.flush();
        }
      }
    } finally {
      TempDirs.deleteQuietly(dir);
    }
    out.println("AX stopped.");
    out.flush();
    if (stop.isRaised()) {
      return ExitCodes.INTERRUPTED;
    }
    return differences.isEmpty() ? ExitCodes.OK : ExitCodes.FAILED;
  }

  /** The embedded servers, a metrics port of its own, and the demo endpoints allowed for HTTP. */
  private static Map<String, String> overrides(Infrastructure servers, DemoEndpoints http) {
    Map<String, String> overrides = new HashMap<>(servers.overrides());
    overrides.put(CommonKeys.TOPIC_PREFIX.name(), "");
    overrides.put(CommonKeys.METRICS_BIND.name(), "127.0.0.1:0");
    overrides.put(DispatcherKeys.HTTP_ALLOWED_HOSTS.name(), http.host());
    overrides.put(CommonKeys.DB_MIGRATE.name(), "true");
    return overrides;
  }

  private static void send(DemoPlan plan, CommandSender sender, Topics topics, PrintWriter out)
      throws InterruptedException {
    for (DemoPlan.Step step : plan.steps()) {
      sender.send(topics.commands(), step.key(), step.value());
    }
    long runs = plan.runs().size();
    out.println(
        "Sent "
            + plan.steps().size()
            + " commands to "
            + topics.commands()
            + ": "
            + runs
            + " tasks, "
            + plan.duplicates().size()
            + " duplicate create, "
            + plan.rejections().size()
            + " invalid commands. Outcomes as they arrive:");
    out.flush();
  }

  /**
   * Prints each completion and rejection as it arrives, until everything expected is in (plus a
   * short settle period to catch a duplicate run), the deadline passes, or a signal arrives.
   *
   * @return true when everything expected arrived
   */
  private boolean watch(
      TopicTail events, Topics topics, DemoOutcomes outcomes, StopSignal stop, PrintWriter out) {
    long deadlineNanos = System.nanoTime() + deadline.toNanos();
    long settleUntilNanos = Long.MAX_VALUE;
    while (!stop.isRaised() && System.nanoTime() < Math.min(deadlineNanos, settleUntilNanos)) {
      for (ConsumerRecord<String, byte[]> record : events.poll(POLL_TIMEOUT)) {
        if (record.topic().equals(topics.completed())) {
          TaskCompletedEvent event = AxJson.read(record.value(), TaskCompletedEvent.class);
          outcomes.completed(event);
          out.println("  " + EventLines.completed(event));
        } else {
          String reason = header(record, RejectHeaders.REASON);
          outcomes.rejected(record.key(), reason);
          out.println("  " + EventLines.rejected(record.key(), reason));
        }
        out.flush();
      }
      if (settleUntilNanos == Long.MAX_VALUE && outcomes.allArrived()) {
        settleUntilNanos = System.nanoTime() + SETTLE.toNanos();
      }
    }
    return outcomes.allArrived();
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null
        ? "(no reason header)"
        : new String(header.value(), StandardCharsets.UTF_8);
  }
}
