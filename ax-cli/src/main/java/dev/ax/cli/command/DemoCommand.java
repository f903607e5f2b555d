package dev.ax.cli.command;

import dev.ax.api.client.ApiClient;
import dev.ax.api.http.ApiKeys;
import dev.ax.api.http.ApiSettings;
import dev.ax.api.kafka.CommandSender;
import dev.ax.cli.demo.DemoActions;
import dev.ax.cli.demo.DemoEndpoints;
import dev.ax.cli.demo.DemoPlan;
import dev.ax.cli.demo.DemoReport;
import dev.ax.cli.demo.DemoRun;
import dev.ax.cli.demo.DemoScenes;
import dev.ax.cli.kafka.TopicTail;
import dev.ax.cli.local.ConsoleServer;
import dev.ax.cli.local.Infrastructure;
import dev.ax.cli.local.Pipeline;
import dev.ax.cli.local.StopSignal;
import dev.ax.cli.local.TempDirs;
import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.config.CommonKeys;
import dev.ax.common.config.ConfigException;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.kafka.Topics;
import dev.ax.dispatcher.DispatcherConfig;
import dev.ax.dispatcher.DispatcherKeys;
import dev.ax.ticker.TickerConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ax demo}: starts everything embedded in a fresh temporary directory (whatever the
 * environment says about servers) with the API and console, plays the {@link DemoScenes} (every
 * trigger type, a flow with a join, a dead letter replayed, pause, resume, cancel) by sending plain
 * JSON commands and acting through the HTTP API, prints each outcome as it arrives and a report,
 * then stops and deletes the directory (kept when the demo failed, for its log). With {@code
 * --keep} AX keeps running after the report until Ctrl-C. Exits 0 when everything ended as planned,
 * 1 otherwise, 130 when interrupted before the report. Runs on the main thread.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Start AX with embedded Kafka and MariaDB in a temporary directory, with the console, and"
          + " show it working: one-shot, CRON, FIXED_RATE, FIXED_DELAY and DEPENDENCY tasks, a"
          + " flow with a join, retries into a dead letter and its replay, a pause and resume, a"
          + " cancel, two invalid commands. Prints each outcome and a report, then stops.",
      "Exit code 0 when everything ended as planned, 1 otherwise."
    })
public final class DemoCommand implements Callable<Integer> {

  private static final String PROCESS_NAME = "ax-demo";
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
  private static final int CONSOLE_PORT = 8480;

  @Spec private CommandSpec spec;

  @Option(
      names = "--deadline",
      defaultValue = "90s",
      paramLabel = "<duration>",
      description = "Give up waiting for outcomes after this long (default: ${DEFAULT-VALUE}).")
  private Duration deadline;

  @Option(
      names = "--keep",
      description = "Keep AX and the console running after the report, until Ctrl-C.")
  private boolean keep;

  @Mixin private VerboseOption verbose;

  /** Set once the report is printed: a signal after it (with --keep) is the way to stop. */
  private boolean reported;

  @Override
  @SuppressWarnings("try") // resources held open for the command's lifetime, closed in order
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    StopSignal stop = StopSignal.install(System.err);
    Path dir = TempDirs.create("ax-demo-");
    Path log = dir.resolve("ax-demo.log");
    boolean logsInFile = verbose.logsTo(log);
    List<String> differences = List.of("the demo did not finish");
    try {
      out.println("Starting AX (embedded Kafka and MariaDB) in " + dir + " ...");
      out.flush();
      try (Infrastructure servers = Infrastructure.embedded(dir);
          DemoEndpoints http = DemoEndpoints.start()) {
        AxConfig config = AxConfig.fromEnvironment(overrides(servers, http));
        Topics topics = new Topics(CommonConfig.from(config).topicPrefix());
        try (Pipeline pipeline = Pipeline.start(config, PROCESS_NAME);
            ConsoleServer console = console(config, pipeline, servers, topics);
            TopicTail events =
                TopicTail.open(
                    servers.kafka(),
                    List.of(topics.completed(), topics.commandsRejected()),
                    TopicTail.From.BEGINNING);
            CommandSender sender = CommandSender.open(servers.kafka(), PROCESS_NAME)) {
          printSetting(out, servers, config, console, logsInFile ? log : null);
          Instant sentAt = evenSecond();
          DemoRun run =
              new DemoRun(
                  DemoScenes.standard(http.baseUri(), sentAt),
                  new DemoActions(
                      new ApiClient(URI.create(console.apiUrl()), null),
                      step -> sender.send(topics.commands(), step.key(), step.value()),
                      http,
                      out),
                  out,
                  pipeline.context().clock()::millis);
          differences = play(run, sender, topics, events, stop, out);
          if (keep && !stop.isRaised()) {
            out.println();
            out.println(
                "AX keeps running: console " + console.consoleUrl() + " (Ctrl-C stops it).");
            out.flush();
            while (!stop.isRaised()) {
              poll(events, topics, run);
            }
          }
          out.println();
          out.println("Stopping AX...");
          out.flush();
        }
      }
    } finally {
      if (differences.isEmpty() || !logsInFile) {
        TempDirs.deleteQuietly(dir);
      } else {
        out.println("Kept " + dir + " for a look (the stages' log: " + log + ").");
      }
    }
    out.println("AX stopped.");
    out.flush();
    if (stop.isRaised() && !reported) {
      return ExitCodes.INTERRUPTED;
    }
    return differences.isEmpty() ? ExitCodes.OK : ExitCodes.FAILED;
  }

  /**
   * Waits for the start of the next even second and returns it: the CRON task fires every even
   * second, so its first firing is then two seconds away, scheduled like every later one rather
   * than due while its command is still on the way.
   */
  private static Instant evenSecond() throws InterruptedException {
    long nowMs = System.currentTimeMillis();
    long startMs = (nowMs / 2_000 + 1) * 2_000;
    Thread.sleep(startMs - nowMs); // pacing the demo's start, not synchronisation
    return Instant.ofEpochMilli(startMs);
  }

  /** Sends every scene's commands, plays the scenes out, prints the report; the differences. */
  private List<String> play(
      DemoRun run,
      CommandSender sender,
      Topics topics,
      TopicTail events,
      StopSignal stop,
      PrintWriter out)
      throws InterruptedException {
    List<DemoPlan.Step> commands = run.commands();
    for (DemoPlan.Step step : commands) {
      sender.send(topics.commands(), step.key(), step.value());
    }
    out.println();
    out.println(
        "Sent " + commands.size() + " commands to " + topics.commands() + ". As they happen:");
    out.flush();
    long deadlineNanos = System.nanoTime() + deadline.toNanos();
    boolean done =
        run.run(
            () -> poll(events, topics, run),
            () -> stop.isRaised() || System.nanoTime() > deadlineNanos);
    if (!done && !stop.isRaised()) {
      out.println("Deadline of " + deadline.toSeconds() + " s passed; not everything happened.");
    }
    if (stop.isRaised()) {
      out.println();
      out.println("Demo interrupted by " + stop.signalName() + ".");
      return List.of("interrupted by " + stop.signalName());
    }
    run.printReport();
    reported = true;
    List<String> differences = run.differences();
    DemoReport.printVerdict(out, differences);
    return differences;
  }

  private static void poll(TopicTail events, Topics topics, DemoRun run) {
    for (ConsumerRecord<String, byte[]> record : events.poll(POLL_TIMEOUT)) {
      if (record.topic().equals(topics.completed())) {
        run.completed(AxJson.read(record.value(), TaskCompletedEvent.class));
      } else {
        run.rejected(record.key(), header(record, RejectHeaders.REASON));
      }
    }
  }

  /**
   * The API and console on loopback: at {@code AX_CONSOLE_BIND}'s port when it names one (8480 by
   * default), or on any free port when that one is taken.
   */
  private static ConsoleServer console(
      AxConfig config, Pipeline pipeline, Infrastructure servers, Topics topics) {
    ApiSettings configured = ApiSettings.from(config).orElseThrow();
    Function<ApiSettings, ConsoleServer> start =
        settings ->
            ConsoleServer.start(
                settings,
                ApiSettings.metricsSources(config),
                pipeline.context().dataSource(),
                pipeline.context().clock()::millis,
                servers.kafka(),
                topics,
                PROCESS_NAME + "-console");
    try {
      return start.apply(configured);
    } catch (ConfigException e) {
      return start.apply(
          new ApiSettings(
              configured.host(),
              0,
              configured.tokens(),
              configured.maxRequestBytes(),
              configured.ratePerSecond()));
    }
  }

  /** A few lines on what runs where: servers, the settings that shape timing, console, log. */
  private static void printSetting(
      PrintWriter out, Infrastructure servers, AxConfig config, ConsoleServer console, Path log) {
    TickerConfig ticker = TickerConfig.from(config);
    DispatcherConfig dispatcher = DispatcherConfig.from(config);
    out.println("AX is running, every stage in this JVM:");
    out.println("  Kafka     " + servers.bootstrapServers() + " (embedded)");
    out.println("  Database  " + servers.displayJdbcUrl() + " (embedded MariaDB)");
    out.println(
        "  Ticker    a "
            + ticker.tick().toMillis()
            + " ms wheel tick, due events sent "
            + ticker.emitAhead().toMillis()
            + " ms ahead");
    out.println(
        "  Executors "
            + dispatcher.threads()
            + " dispatcher threads; HTTP allowed to "
            + String.join(", ", config.get(DispatcherKeys.HTTP_ALLOWED_HOSTS)));
    out.println("  Console   " + console.consoleUrl() + "  (API " + console.apiUrl() + ")");
    if (log != null) {
      out.println("  Logs      " + log + " (-v shows them here)");
    }
    out.flush();
  }

  /** The embedded servers, the demo endpoints allowed for HTTP, free ports, the console. */
  private static Map<String, String> overrides(Infrastructure servers, DemoEndpoints http) {
    Map<String, String> overrides = new HashMap<>(servers.overrides());
    overrides.put(CommonKeys.TOPIC_PREFIX.name(), "");
    overrides.put(CommonKeys.METRICS_BIND.name(), "127.0.0.1:" + freePort());
    overrides.put(DispatcherKeys.HTTP_ALLOWED_HOSTS.name(), http.host());
    overrides.put(DispatcherKeys.HTTP_REQUIRE_TLS.name(), "false"); // its endpoints are plain http
    overrides.put(CommonKeys.DB_MIGRATE.name(), "true");
    overrides.put(ApiKeys.BIND.name(), "127.0.0.1:" + consolePort());
    overrides.put(ApiKeys.TOKENS_FILE.name(), "");
    overrides.put(ApiKeys.METRICS_URLS.name(), "");
    // The demo polls the API a few times a round, beside a console page a person may open.
    overrides.put(ApiKeys.RATE_PER_SECOND.name(), "1000");
    return overrides;
  }

  /** The port of {@code AX_CONSOLE_BIND} when it names one, else 8480. */
  private static int consolePort() {
    String bind = AxConfig.fromEnvironment(Map.of()).get(ApiKeys.BIND);
    int colon = bind.lastIndexOf(':');
    try {
      return colon < 0 ? CONSOLE_PORT : Integer.parseInt(bind.substring(colon + 1));
    } catch (NumberFormatException e) {
      return CONSOLE_PORT;
    }
  }

  /** A port free now, for the metrics endpoint the console's overview reads. */
  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port for the metrics endpoint", e);
    }
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null
        ? "(no reason header)"
        : new String(header.value(), StandardCharsets.UTF_8);
  }
}
